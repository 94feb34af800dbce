package hbase

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"rangecopy/hbase/pb"
)

// ErrClosed is returned by calls on a closed Client or connection.
var ErrClosed = errors.New("hbase: client closed")

// ExceptionKind is the kind of a server-side exception, derived from its Java
// class name.
type ExceptionKind int

// Exception kinds the client reacts to. KindOther covers every other class.
const (
	KindOther ExceptionKind = iota
	KindNotServingRegion
	KindRegionMoved
	KindRegionOpening
	KindRegionTooBusy
	KindServerNotRunningYet
	KindRegionServerStopped
	KindCallQueueTooBig
	KindPleaseHold
	KindRetryImmediately
	KindThrottling
	KindTableNotFound
	KindTableNotEnabled
	KindTableNotDisabled
	KindTableExists
	KindNoSuchColumnFamily
	KindNamespaceNotFound
	KindSnapshotNotFound
	KindUnknownScanner
	KindOutOfOrderScannerNext
	KindSnapshotFailed
	KindDoNotRetryIO
)

var kindNames = [...]string{
	KindOther:                 "Other",
	KindNotServingRegion:      "NotServingRegion",
	KindRegionMoved:           "RegionMoved",
	KindRegionOpening:         "RegionOpening",
	KindRegionTooBusy:         "RegionTooBusy",
	KindServerNotRunningYet:   "ServerNotRunningYet",
	KindRegionServerStopped:   "RegionServerStopped",
	KindCallQueueTooBig:       "CallQueueTooBig",
	KindPleaseHold:            "PleaseHold",
	KindRetryImmediately:      "RetryImmediately",
	KindThrottling:            "Throttling",
	KindTableNotFound:         "TableNotFound",
	KindTableNotEnabled:       "TableNotEnabled",
	KindTableNotDisabled:      "TableNotDisabled",
	KindTableExists:           "TableExists",
	KindNoSuchColumnFamily:    "NoSuchColumnFamily",
	KindNamespaceNotFound:     "NamespaceNotFound",
	KindSnapshotNotFound:      "SnapshotNotFound",
	KindUnknownScanner:        "UnknownScanner",
	KindOutOfOrderScannerNext: "OutOfOrderScannerNext",
	KindSnapshotFailed:        "SnapshotFailed",
	KindDoNotRetryIO:          "DoNotRetryIO",
}

// String returns the kind's name.
func (k ExceptionKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ExceptionKind(%d)", int(k))
}

// exceptionKinds maps Java exception class names to kinds.
var exceptionKinds = map[string]ExceptionKind{
	"org.apache.hadoop.hbase.NotServingRegionException":                   KindNotServingRegion,
	"org.apache.hadoop.hbase.exceptions.RegionMovedException":             KindRegionMoved,
	"org.apache.hadoop.hbase.exceptions.RegionOpeningException":           KindRegionOpening,
	"org.apache.hadoop.hbase.RegionTooBusyException":                      KindRegionTooBusy,
	"org.apache.hadoop.hbase.ipc.ServerNotRunningYetException":            KindServerNotRunningYet,
	"org.apache.hadoop.hbase.regionserver.RegionServerStoppedException":   KindRegionServerStopped,
	"org.apache.hadoop.hbase.regionserver.RegionServerAbortedException":   KindRegionServerStopped,
	"org.apache.hadoop.hbase.exceptions.MasterStoppedException":           KindRegionServerStopped,
	"org.apache.hadoop.hbase.CallQueueTooBigException":                    KindCallQueueTooBig,
	"org.apache.hadoop.hbase.PleaseHoldException":                         KindPleaseHold,
	"org.apache.hadoop.hbase.RetryImmediatelyException":                   KindRetryImmediately,
	"org.apache.hadoop.hbase.quotas.RpcThrottlingException":               KindThrottling,
	"org.apache.hadoop.hbase.TableNotFoundException":                      KindTableNotFound,
	"org.apache.hadoop.hbase.TableNotEnabledException":                    KindTableNotEnabled,
	"org.apache.hadoop.hbase.TableNotDisabledException":                   KindTableNotDisabled,
	"org.apache.hadoop.hbase.TableExistsException":                        KindTableExists,
	"org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException":    KindNoSuchColumnFamily,
	"org.apache.hadoop.hbase.NamespaceNotFoundException":                  KindNamespaceNotFound,
	"org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException":      KindSnapshotNotFound,
	"org.apache.hadoop.hbase.UnknownScannerException":                     KindUnknownScanner,
	"org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException":   KindOutOfOrderScannerNext,
	"org.apache.hadoop.hbase.DoNotRetryIOException":                       KindDoNotRetryIO,
	"org.apache.hadoop.hbase.exceptions.ScannerResetException":            KindDoNotRetryIO,
	"org.apache.hadoop.hbase.exceptions.UnknownProtocolException":         KindDoNotRetryIO,
	"org.apache.hadoop.hbase.security.AccessDeniedException":              KindDoNotRetryIO,
	"org.apache.hadoop.hbase.regionserver.WrongRegionException":           KindDoNotRetryIO,
	"org.apache.hadoop.hbase.exceptions.FailedSanityCheckException":       KindDoNotRetryIO,
	"org.apache.hadoop.hbase.InvalidFamilyOperationException":             KindDoNotRetryIO,
	"org.apache.hadoop.hbase.snapshot.SnapshotCreationException":          KindSnapshotFailed,
	"org.apache.hadoop.hbase.snapshot.SnapshotExistsException":            KindDoNotRetryIO,
	"org.apache.hadoop.hbase.snapshot.HBaseSnapshotException":             KindSnapshotFailed,
	"org.apache.hadoop.hbase.exceptions.MergeRegionException":             KindDoNotRetryIO,
	"org.apache.hadoop.hbase.ipc.StoppedRpcClientException":               KindDoNotRetryIO,
	"org.apache.hadoop.hbase.NamespaceExistException":                     KindDoNotRetryIO,
	"org.apache.hadoop.hbase.ipc.FatalConnectionException":                KindDoNotRetryIO,
	"org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException":           KindDoNotRetryIO,
	"org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException":    KindDoNotRetryIO,
	"org.apache.hadoop.hbase.exceptions.RequestTooBigException":           KindDoNotRetryIO,
	"org.apache.hadoop.hbase.regionserver.LeaseException":                 KindUnknownScanner,
	"org.apache.hadoop.hbase.regionserver.RegionServerRunningException":   KindOther,
	"org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException": KindOther,
}

// KindOf returns the kind for a Java exception class name.
func KindOf(className string) ExceptionKind {
	return exceptionKinds[className]
}

// RemoteError is an exception thrown by an HBase server, decoded from the
// ExceptionResponse of a call (or from a per-action exception of a Multi).
// Use errors.As to get at it, or errors.Is with the Err* kind sentinels.
type RemoteError struct {
	Kind       ExceptionKind
	Class      string // Java class name
	Message    string // first line of the stack trace, without the class name
	StackTrace string
	// MovedTo is the region's new server for KindRegionMoved, when the
	// server said.
	MovedTo    ServerName
	DoNotRetry bool

	Server ServerName // the server that answered
	Region string     // the region name, when the call was for a region
	Method string     // the RPC method
	CallID uint32
}

// Error names the exception, the server, the region and the call.
func (e *RemoteError) Error() string {
	var b strings.Builder
	b.WriteString(e.Class)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	fmt.Fprintf(&b, " (call %s #%d on %s", e.Method, e.CallID, e.Server.Addr())
	if e.Region != "" {
		fmt.Fprintf(&b, ", region %s", e.Region)
	}
	if !e.MovedTo.IsZero() {
		fmt.Fprintf(&b, ", moved to %s", e.MovedTo.Addr())
	}
	b.WriteString(")")
	return b.String()
}

// Is matches the kind sentinels (ErrNotServingRegion, ...) and ErrDoNotRetry.
func (e *RemoteError) Is(target error) bool {
	if k, ok := target.(kindError); ok {
		return k.kind == e.Kind || (k.kind == KindDoNotRetryIO && e.DoNotRetry)
	}
	return false
}

// kindError is a sentinel standing for every RemoteError of one kind.
type kindError struct{ kind ExceptionKind }

func (k kindError) Error() string { return "hbase: " + k.kind.String() }

// Sentinels for errors.Is, one per kind of server exception.
var (
	ErrNotServingRegion    error = kindError{KindNotServingRegion}
	ErrRegionMoved         error = kindError{KindRegionMoved}
	ErrRegionOpening       error = kindError{KindRegionOpening}
	ErrRegionTooBusy       error = kindError{KindRegionTooBusy}
	ErrServerNotRunningYet error = kindError{KindServerNotRunningYet}
	ErrServerStopped       error = kindError{KindRegionServerStopped}
	ErrCallQueueTooBig     error = kindError{KindCallQueueTooBig}
	ErrPleaseHold          error = kindError{KindPleaseHold}
	ErrTableNotFound       error = kindError{KindTableNotFound}
	ErrTableNotEnabled     error = kindError{KindTableNotEnabled}
	ErrTableNotDisabled    error = kindError{KindTableNotDisabled}
	ErrTableExists         error = kindError{KindTableExists}
	ErrNoSuchColumnFamily  error = kindError{KindNoSuchColumnFamily}
	ErrNamespaceNotFound   error = kindError{KindNamespaceNotFound}
	ErrSnapshotNotFound    error = kindError{KindSnapshotNotFound}
	ErrUnknownScanner      error = kindError{KindUnknownScanner}
	// ErrSnapshotFailed matches a snapshot the master could not take or
	// gave up on (HBaseSnapshotException, SnapshotCreationException: a
	// region server failed or died meanwhile, another snapshot of the table
	// is running, the master's snapshot timeout passed), and a snapshot
	// CreateSnapshot stopped waiting for because a region server it waited
	// on is gone. Taking it again, under a new name, may succeed.
	ErrSnapshotFailed error = kindError{KindSnapshotFailed}
	// ErrDoNotRetry matches DoNotRetryIOException and every exception the
	// server flagged do_not_retry (its subclasses).
	ErrDoNotRetry error = kindError{KindDoNotRetryIO}
)

// newRemoteError decodes an ExceptionResponse.
func newRemoteError(ex *pb.ExceptionResponse) *RemoteError {
	e := &RemoteError{
		Class:      ex.GetExceptionClassName(),
		StackTrace: ex.GetStackTrace(),
		DoNotRetry: ex.GetDoNotRetry(),
	}
	e.Kind = KindOf(e.Class)
	e.Message = exceptionMessage(e.Class, e.StackTrace)
	if e.Kind == KindRegionMoved && ex.GetHostname() != "" {
		e.MovedTo = ServerName{Host: ex.GetHostname(), Port: int(ex.GetPort())}
	}
	return e
}

// newRemoteErrorFromPair decodes a Multi per-action exception: the name is the
// class and the value the stringified exception.
func newRemoteErrorFromPair(p *pb.NameBytesPair) *RemoteError {
	e := &RemoteError{Class: p.GetName(), StackTrace: string(p.GetValue())}
	e.Kind = KindOf(e.Class)
	e.Message = exceptionMessage(e.Class, e.StackTrace)
	if e.Kind == KindDoNotRetryIO || e.Kind == KindNoSuchColumnFamily || e.Kind == KindTableNotFound || e.Kind == KindSnapshotFailed {
		e.DoNotRetry = true
	}
	return e
}

// exceptionMessage takes the first line of a Java stack trace and strips the
// "class: " prefix.
func exceptionMessage(class, trace string) string {
	line, _, _ := strings.Cut(trace, "\n")
	line = strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(line, class); ok {
		line = strings.TrimSpace(strings.TrimPrefix(rest, ":"))
	}
	return line
}

// CallTimeoutError reports a call that the server did not answer within
// Config.CallTimeout. The server may or may not have run it; it is retried
// after locating the region again.
type CallTimeoutError struct {
	Server  ServerName
	Method  string
	Timeout time.Duration
}

// Error names the call, the server and the timeout.
func (e *CallTimeoutError) Error() string {
	return fmt.Sprintf("call %s on %s: no answer within %s", e.Method, e.Server.Addr(), e.Timeout)
}

// ConnError reports a failed or broken connection to a server. Calls that
// fail with it were not answered; the server may or may not have run them.
type ConnError struct {
	Server ServerName
	Err    error
}

// Error names the server and the cause.
func (e *ConnError) Error() string {
	return fmt.Sprintf("connection to %s: %v", e.Server.Addr(), e.Err)
}

// Unwrap returns the cause.
func (e *ConnError) Unwrap() error { return e.Err }

// NotFoundError reports that a table, family, namespace or snapshot the
// client was asked about does not exist, found on the client side (for
// example a table without regions in hbase:meta). errors.Is matches the
// corresponding kind sentinel.
type NotFoundError struct {
	Kind ExceptionKind // KindTableNotFound, KindNoSuchColumnFamily, ...
	What string        // "table", "column family", ...
	Name string
}

// Error names what was not found.
func (e *NotFoundError) Error() string { return fmt.Sprintf("hbase: %s %q not found", e.What, e.Name) }

// Is matches the kind sentinel.
func (e *NotFoundError) Is(target error) bool {
	k, ok := target.(kindError)
	return ok && k.kind == e.Kind
}

func asConnError(err error, target **ConnError) bool { return errors.As(err, target) }

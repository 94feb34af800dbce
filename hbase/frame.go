package hbase

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// ErrProtocol reports bytes from a server that do not follow the HBase RPC
// protocol: a frame that is too large or too short, a header that does not
// decode, lengths that do not add up.
var ErrProtocol = errors.New("hbase: protocol error")

// DefaultMaxFrameSize caps the size of one response frame. HBase's own
// server-side cap for requests (hbase.ipc.max.request.size) is 256 MiB.
const DefaultMaxFrameSize = 256 << 20

// rpcMagic is the connection preamble magic; rpcVersion the protocol version.
var rpcMagic = [4]byte{'H', 'B', 'a', 's'}

const rpcVersion = 0

// keyValueCodecClass is the server-side class of the cell block codec we use.
const keyValueCodecClass = "org.apache.hadoop.hbase.codec.KeyValueCodec"

// encodePreamble returns the connection preamble: magic, version, auth method,
// a 4-byte big-endian length and the ConnectionHeader.
func encodePreamble(auth AuthMethod, hdr *pb.ConnectionHeader) ([]byte, error) {
	body, err := proto.Marshal(hdr)
	if err != nil {
		return nil, fmt.Errorf("marshal connection header: %w", err)
	}
	b := make([]byte, 0, 10+len(body))
	b = append(b, rpcMagic[:]...)
	b = append(b, rpcVersion, byte(auth))
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...), nil
}

// appendDelimited appends m preceded by its varint length.
func appendDelimited(b []byte, m proto.Message) ([]byte, error) {
	size := proto.Size(m)
	b = protowire.AppendVarint(b, uint64(size))
	return proto.MarshalOptions{}.MarshalAppend(b, m)
}

// encodeRequest returns one complete request frame: a 4-byte big-endian total
// length, the delimited RequestHeader, the delimited param and the cell block.
func encodeRequest(hdr *pb.RequestHeader, param proto.Message, cellBlock []byte) ([]byte, error) {
	if len(cellBlock) > 0 {
		hdr.CellBlockMeta = &pb.CellBlockMeta{Length: proto.Uint32(uint32(len(cellBlock)))}
	}
	if param != nil {
		hdr.RequestParam = proto.Bool(true)
	}
	b := make([]byte, 4, 64+proto.Size(param)+len(cellBlock))
	var err error
	if b, err = appendDelimited(b, hdr); err != nil {
		return nil, fmt.Errorf("marshal request header: %w", err)
	}
	if param != nil {
		if b, err = appendDelimited(b, param); err != nil {
			return nil, fmt.Errorf("marshal %s request: %w", hdr.GetMethodName(), err)
		}
	}
	b = append(b, cellBlock...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b, nil
}

// response is one decoded response frame. param and cellBlock alias the
// frame's bytes.
type response struct {
	callID    uint32
	exception *pb.ExceptionResponse
	param     []byte
	cellBlock []byte
}

// readFrame reads one length-prefixed frame and returns its body (without the
// length). It refuses frames larger than max before allocating.
func readFrame(r io.Reader, max int) ([]byte, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(lenBuf[:])
	if uint64(n) > uint64(max) {
		return nil, fmt.Errorf("%w: frame of %d bytes exceeds the limit of %d", ErrProtocol, n, max)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// consumeDelimited splits a varint length-prefixed message off b.
func consumeDelimited(b []byte) (msg, rest []byte, err error) {
	n, vlen := protowire.ConsumeVarint(b)
	if vlen < 0 {
		return nil, nil, fmt.Errorf("%w: bad varint length", ErrProtocol)
	}
	b = b[vlen:]
	if n > uint64(len(b)) {
		return nil, nil, fmt.Errorf("%w: delimited message of %d bytes, only %d left in frame", ErrProtocol, n, len(b))
	}
	return b[:n], b[n:], nil
}

// decodeResponse parses a response frame body (without its length prefix).
func decodeResponse(frame []byte) (*response, error) {
	hb, rest, err := consumeDelimited(frame)
	if err != nil {
		return nil, fmt.Errorf("response header: %w", err)
	}
	var hdr pb.ResponseHeader
	if err := proto.Unmarshal(hb, &hdr); err != nil {
		return nil, fmt.Errorf("%w: response header: %v", ErrProtocol, err)
	}
	if hdr.CallId == nil {
		return nil, fmt.Errorf("%w: response header without call id", ErrProtocol)
	}
	resp := &response{callID: hdr.GetCallId(), exception: hdr.Exception}
	if hdr.Exception != nil {
		return resp, nil
	}
	cbLen := uint64(hdr.GetCellBlockMeta().GetLength())
	if cbLen > uint64(len(rest)) {
		return nil, fmt.Errorf("%w: cell block of %d bytes, only %d left in frame", ErrProtocol, cbLen, len(rest))
	}
	resp.cellBlock = rest[uint64(len(rest))-cbLen:]
	rest = rest[:uint64(len(rest))-cbLen]
	if len(rest) > 0 {
		param, extra, err := consumeDelimited(rest)
		if err != nil {
			return nil, fmt.Errorf("response param: %w", err)
		}
		if len(extra) != 0 {
			return nil, fmt.Errorf("%w: %d unexpected bytes after response param", ErrProtocol, len(extra))
		}
		resp.param = param
	}
	return resp, nil
}

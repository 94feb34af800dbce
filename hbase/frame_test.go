package hbase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

func TestEncodePreamble(t *testing.T) {
	hdr := &pb.ConnectionHeader{
		UserInfo:            &pb.UserInformation{EffectiveUser: proto.String("alice")},
		ServiceName:         proto.String("ClientService"),
		CellBlockCodecClass: proto.String(keyValueCodecClass),
	}
	b, err := encodePreamble(AuthSimple, hdr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b[:6], []byte("HBas\x00\x50")) {
		t.Fatalf("preamble starts %q", b[:6])
	}
	n := binary.BigEndian.Uint32(b[6:10])
	if int(n) != len(b)-10 {
		t.Fatalf("header length %d, %d bytes follow", n, len(b)-10)
	}
	var got pb.ConnectionHeader
	if err := proto.Unmarshal(b[10:], &got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&got, hdr) {
		t.Fatalf("header round trip: %v", &got)
	}
}

// buildResponse encodes a response frame body the way HBase's server does.
func buildResponse(t testing.TB, hdr *pb.ResponseHeader, param proto.Message, cellBlock []byte) []byte {
	t.Helper()
	if len(cellBlock) > 0 {
		hdr.CellBlockMeta = &pb.CellBlockMeta{Length: proto.Uint32(uint32(len(cellBlock)))}
	}
	b, err := appendDelimited(nil, hdr)
	if err != nil {
		t.Fatal(err)
	}
	if param != nil {
		if b, err = appendDelimited(b, param); err != nil {
			t.Fatal(err)
		}
	}
	return append(b, cellBlock...)
}

func TestRequestFrameRoundTrip(t *testing.T) {
	param := &pb.GetRequest{
		Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte("t,,1.abc.")},
		Get:    &pb.Get{Row: []byte("row")},
	}
	cb := []byte("cellblock")
	frame, err := encodeRequest(&pb.RequestHeader{CallId: proto.Uint32(7), MethodName: proto.String("Get")}, param, cb)
	if err != nil {
		t.Fatal(err)
	}
	if int(binary.BigEndian.Uint32(frame)) != len(frame)-4 {
		t.Fatalf("length prefix %d, frame body %d", binary.BigEndian.Uint32(frame), len(frame)-4)
	}
	hb, rest, err := consumeDelimited(frame[4:])
	if err != nil {
		t.Fatal(err)
	}
	var hdr pb.RequestHeader
	if err := proto.Unmarshal(hb, &hdr); err != nil {
		t.Fatal(err)
	}
	if hdr.GetCallId() != 7 || hdr.GetMethodName() != "Get" || !hdr.GetRequestParam() || hdr.GetCellBlockMeta().GetLength() != uint32(len(cb)) {
		t.Fatalf("request header %v", &hdr)
	}
	pbytes, rest, err := consumeDelimited(rest)
	if err != nil {
		t.Fatal(err)
	}
	var got pb.GetRequest
	if err := proto.Unmarshal(pbytes, &got); err != nil || !proto.Equal(&got, param) {
		t.Fatalf("param %v, %v", &got, err)
	}
	if !bytes.Equal(rest, cb) {
		t.Fatalf("cell block %q", rest)
	}
}

func TestDecodeResponse(t *testing.T) {
	param := &pb.ScanResponse{ScannerId: proto.Uint64(42)}
	body := buildResponse(t, &pb.ResponseHeader{CallId: proto.Uint32(3)}, param, []byte("CB"))
	resp, err := decodeResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.callID != 3 || string(resp.cellBlock) != "CB" || resp.exception != nil {
		t.Fatalf("decoded %+v", resp)
	}
	var got pb.ScanResponse
	if err := proto.Unmarshal(resp.param, &got); err != nil || got.GetScannerId() != 42 {
		t.Fatalf("param %v %v", &got, err)
	}

	exc := &pb.ExceptionResponse{ExceptionClassName: proto.String("org.apache.hadoop.hbase.NotServingRegionException"),
		StackTrace: proto.String("org.apache.hadoop.hbase.NotServingRegionException: t,,1.abc. is not online\n\tat x")}
	resp, err = decodeResponse(buildResponse(t, &pb.ResponseHeader{CallId: proto.Uint32(4), Exception: exc}, nil, nil))
	if err != nil || resp.exception == nil || resp.callID != 4 {
		t.Fatalf("exception response %+v %v", resp, err)
	}
}

func TestDecodeResponseErrors(t *testing.T) {
	good := buildResponse(t, &pb.ResponseHeader{CallId: proto.Uint32(1)}, &pb.ScanResponse{ScannerId: proto.Uint64(1)}, nil)
	tests := map[string][]byte{
		"empty":            nil,
		"header overflows": protowire.AppendVarint(nil, 100),
		"no call id":       buildResponse(t, &pb.ResponseHeader{}, nil, nil),
		"cell block too long": func() []byte {
			h, _ := appendDelimited(nil, &pb.ResponseHeader{CallId: proto.Uint32(1), CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(1000)}})
			return h
		}(),
		"trailing bytes":  append(good[:len(good):len(good)], 0x01),
		"truncated param": good[:len(good)-1],
		"bad varint":      {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
	}
	for name, b := range tests {
		if _, err := decodeResponse(b); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: err = %v, want ErrProtocol", name, err)
		}
	}
}

func TestReadFrameCapsSize(t *testing.T) {
	b := binary.BigEndian.AppendUint32(nil, 1<<30)
	if _, err := readFrame(bytes.NewReader(b), 1<<20); !errors.Is(err, ErrProtocol) {
		t.Fatalf("err = %v, want ErrProtocol", err)
	}
	b = binary.BigEndian.AppendUint32(nil, 5)
	b = append(b, "abc"...)
	if _, err := readFrame(bytes.NewReader(b), 1<<20); err == nil {
		t.Fatal("short frame accepted")
	}
	b = binary.BigEndian.AppendUint32(nil, 3)
	b = append(b, "abc"...)
	if f, err := readFrame(bytes.NewReader(b), 1<<20); err != nil || string(f) != "abc" {
		t.Fatalf("readFrame = %q, %v", f, err)
	}
}

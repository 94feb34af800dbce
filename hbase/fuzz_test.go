package hbase

import (
	"bytes"
	"encoding/binary"
	"testing"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

func FuzzDecodeResponse(f *testing.F) {
	f.Add(buildResponse(f, &pb.ResponseHeader{CallId: proto.Uint32(1)}, &pb.ScanResponse{ScannerId: proto.Uint64(9)}, []byte("cells")))
	f.Add(buildResponse(f, &pb.ResponseHeader{CallId: proto.Uint32(2), Exception: &pb.ExceptionResponse{
		ExceptionClassName: proto.String("x")}}, nil, nil))
	f.Add([]byte{})
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		resp, err := decodeResponse(b)
		if err != nil {
			return
		}
		if len(resp.param)+len(resp.cellBlock) > len(b) {
			t.Fatalf("decoded more bytes than given")
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	f.Add(binary.BigEndian.AppendUint32(nil, 3), []byte("abc"))
	f.Add(binary.BigEndian.AppendUint32(nil, 0xFFFFFFFF), []byte{})
	f.Fuzz(func(t *testing.T, lenPrefix, body []byte) {
		frame, err := readFrame(bytes.NewReader(append(lenPrefix, body...)), 1<<16)
		if err == nil && len(frame) > 1<<16 {
			t.Fatalf("frame of %d bytes over the cap", len(frame))
		}
	})
}

func FuzzDecodeCellBlock(f *testing.F) {
	good, _ := encodeCellBlock(sampleCells())
	f.Add(good, 6)
	f.Add(good[:20], 1)
	f.Add([]byte{}, 0)
	f.Add([]byte{0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0}, 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n > 1<<20 {
			n = 1 << 20
		}
		cells, _, err := decodeCellBlock(b, n)
		if err != nil {
			return
		}
		// What decodes must encode back to the same bytes.
		enc, err := encodeCellBlock(cells)
		if err != nil {
			return // e.g. a type byte a client may not send
		}
		if !bytes.HasPrefix(b, enc) {
			t.Fatalf("re-encoding differs")
		}
	})
}

func FuzzScanResults(f *testing.F) {
	cells, _ := encodeCellBlock(sampleCells())
	resp, _ := proto.Marshal(&pb.ScanResponse{CellsPerResult: []uint32{2, 1, 3}})
	f.Add(resp, cells)
	f.Fuzz(func(t *testing.T, respBytes, cellBlock []byte) {
		var resp pb.ScanResponse
		if proto.Unmarshal(respBytes, &resp) != nil {
			return
		}
		scanResults(&resp, cellBlock)
	})
}

func FuzzParseZNode(f *testing.F) {
	f.Add(znode(f, "123@host", &pb.MetaRegionServer{Server: pbServer("rs", 16020, 1)}))
	f.Add(znode(f, "1", &pb.Master{Master: pbServer("m", 16000, 1)}))
	f.Add([]byte("PBUF"))
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, b []byte) {
		parseMasterZNode(b)
		if sn, err := parseMetaZNode(b); err == nil && (sn.Host == "" || sn.Port <= 0) {
			t.Fatalf("accepted server %v", sn)
		}
	})
}

func FuzzParseMetaRow(f *testing.F) {
	ri, _ := proto.Marshal(&pb.RegionInfo{RegionId: proto.Uint64(1), TableName: tableNamePB("t"), StartKey: []byte("a"), EndKey: []byte("b")})
	f.Add(append([]byte("PBUF"), ri...), []byte("host:16020"))
	f.Add([]byte("PBUF"), []byte(""))
	f.Fuzz(func(t *testing.T, regionInfo, server []byte) {
		r, err := parseMetaRow([]Cell{
			{Family: famInfo, Qualifier: qualRegionInfo, Value: regionInfo},
			{Family: famInfo, Qualifier: qualServer, Value: server},
		})
		if err == nil && len(r.EndKey) > 0 && bytes.Compare(r.StartKey, r.EndKey) >= 0 {
			t.Fatalf("accepted region with start %q >= end %q", r.StartKey, r.EndKey)
		}
	})
}

func FuzzParseServerName(f *testing.F) {
	f.Add("localhost,16020,123")
	f.Add("host:1")
	f.Fuzz(func(t *testing.T, s string) {
		sn, err := ParseServerName(s)
		if err == nil && (sn.Host == "" || sn.Port <= 0 || sn.Port > 65535) {
			t.Fatalf("accepted %q as %v", s, sn)
		}
	})
}

func FuzzResultFromPB(f *testing.F) {
	cells, _ := encodeCellBlock(sampleCells())
	r, _ := proto.Marshal(&pb.Result{AssociatedCellCount: proto.Int32(2)})
	f.Add(r, cells)
	r, _ = proto.Marshal(&pb.Result{Cell: []*pb.Cell{{Row: []byte("r"), Family: []byte("f")}}, AssociatedCellCount: proto.Int32(-1)})
	f.Add(r, []byte{})
	f.Fuzz(func(t *testing.T, resultBytes, cellBlock []byte) {
		var r pb.Result
		if proto.Unmarshal(resultBytes, &r) != nil {
			return
		}
		res, rest, err := resultFromPB(&r, cellBlock)
		if err == nil && len(rest) > len(cellBlock) {
			t.Fatalf("rest grew")
		}
		_ = res
	})
}

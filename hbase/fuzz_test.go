package hbase

import (
	"bytes"
	"encoding/binary"
	"errors"
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
	resp, _ = proto.Marshal(&pb.ScanResponse{Results: []*pb.Result{{AssociatedCellCount: proto.Int32(2)},
		{Cell: []*pb.Cell{{Row: []byte("r"), Family: []byte("f"), Value: []byte("v")}}, AssociatedCellCount: proto.Int32(4)}}})
	f.Add(resp, cells)
	f.Fuzz(func(t *testing.T, respBytes, cellBlock []byte) {
		var resp pb.ScanResponse
		if proto.Unmarshal(respBytes, &resp) != nil {
			return
		}
		out, err := scanResults(&resp, cellBlock)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error does not wrap ErrProtocol: %v", err)
			}
			return
		}
		// One result per protobuf result, or per count, each with the cells
		// announced: the protobuf cells first, then its share of the block.
		var fromBlock []Cell
		if pbs := resp.GetResults(); len(pbs) > 0 {
			if len(out) != len(pbs) {
				t.Fatalf("%d results, the response has %d", len(out), len(pbs))
			}
			for i, r := range out {
				n := len(pbs[i].GetCell())
				if want := n + int(max(pbs[i].GetAssociatedCellCount(), 0)); len(r.Cells) != want {
					t.Fatalf("result %d: %d cells, want %d", i, len(r.Cells), want)
				}
				for j, c := range cellsFromPB(pbs[i].GetCell()) {
					if !sameCell(r.Cells[j], c) {
						t.Fatalf("result %d: cell %d is %v, the response says %v", i, j, r.Cells[j], c)
					}
				}
				fromBlock = append(fromBlock, r.Cells[n:]...)
			}
		} else {
			counts := resp.GetCellsPerResult()
			if len(out) != len(counts) {
				t.Fatalf("%d results for %d counts", len(out), len(counts))
			}
			for i, r := range out {
				if len(r.Cells) != int(counts[i]) {
					t.Fatalf("result %d: %d cells, the count says %d", i, len(r.Cells), counts[i])
				}
				fromBlock = append(fromBlock, r.Cells...)
			}
		}
		for i, r := range out {
			if len(r.Cells) > 0 && !bytes.Equal(r.Row, r.Cells[0].Row) || len(r.Cells) == 0 && r.Row != nil {
				t.Fatalf("result %d: row %q, its first cell's is not that", i, r.Row)
			}
		}
		// The cells taken from the block are its first bytes, in order.
		if enc, err := encodeCellBlock(fromBlock); err == nil && !bytes.HasPrefix(cellBlock, enc) {
			t.Fatalf("the %d cells from the block re-encode to bytes that do not start it", len(fromBlock))
		}
	})
}

// sameCell reports whether two cells are equal field by field.
func sameCell(a, b Cell) bool {
	return bytes.Equal(a.Row, b.Row) && bytes.Equal(a.Family, b.Family) && bytes.Equal(a.Qualifier, b.Qualifier) &&
		a.Timestamp == b.Timestamp && a.Type == b.Type && bytes.Equal(a.Value, b.Value)
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

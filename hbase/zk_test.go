package hbase

import (
	"encoding/binary"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// znode builds HBase's znode content: 0xFF, id length, id, "PBUF", protobuf.
func znode(t testing.TB, id string, m proto.Message) []byte {
	t.Helper()
	body, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte{zkMetaMagic}
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)))
	b = append(b, id...)
	b = append(b, "PBUF"...)
	return append(b, body...)
}

func pbServer(host string, port uint32, sc uint64) *pb.ServerName {
	return &pb.ServerName{HostName: proto.String(host), Port: proto.Uint32(port), StartCode: proto.Uint64(sc)}
}

func TestParseZNodes(t *testing.T) {
	id := "12345@host\x01\x02\x03\x04\x05\x06\x07\x08" // pid@host plus an 8-byte salt
	master := znode(t, id, &pb.Master{Master: pbServer("m1", 16000, 77), InfoPort: proto.Uint32(16010)})
	sn, err := parseMasterZNode(master)
	if err != nil || sn != (ServerName{Host: "m1", Port: 16000, StartCode: 77}) {
		t.Fatalf("master = %v, %v", sn, err)
	}
	meta := znode(t, id, &pb.MetaRegionServer{Server: pbServer("rs1", 16020, 5)})
	sn, err = parseMetaZNode(meta)
	if err != nil || sn != (ServerName{Host: "rs1", Port: 16020, StartCode: 5}) {
		t.Fatalf("meta = %v, %v", sn, err)
	}
	// Without the metadata prefix, as ZKMetadata.removeMetaData tolerates.
	sn, err = parseMetaZNode(meta[5+len(id):])
	if err != nil || sn.Host != "rs1" {
		t.Fatalf("meta without prefix = %v, %v", sn, err)
	}
}

func TestParseZNodeErrors(t *testing.T) {
	good := znode(t, "id", &pb.Master{Master: pbServer("m", 1, 1)})
	tests := map[string][]byte{
		"empty":          nil,
		"short":          {0xFF, 0, 0},
		"zero id length": {0xFF, 0, 0, 0, 0, 'P', 'B', 'U', 'F'},
		"huge id length": {0xFF, 0x7F, 0xFF, 0xFF, 0xFF},
		"id overflows":   {0xFF, 0, 0, 0, 9, 'a'},
		"no magic":       append([]byte{0xFF, 0, 0, 0, 2, 'i', 'd'}, "XBUF"...),
		"bad protobuf":   append(good[:len(good):len(good)], 0xFF),
		"no server":      znode(t, "id", &pb.Master{}),
		"zero port":      znode(t, "id", &pb.Master{Master: pbServer("m", 0, 1)}),
	}
	for name, b := range tests {
		if _, err := parseMasterZNode(b); !errors.Is(err, ErrZNode) {
			t.Errorf("%s: err = %v, want ErrZNode", name, err)
		}
	}
}

func TestParseServerName(t *testing.T) {
	tests := []struct {
		in   string
		want ServerName
		ok   bool
	}{
		{"localhost,39409,1795990458650", ServerName{"localhost", 39409, 1795990458650}, true},
		{"rs1.example.com:16020", ServerName{Host: "rs1.example.com", Port: 16020}, true},
		{"[::1]:16020", ServerName{Host: "::1", Port: 16020}, true},
		{"host,notaport,1", ServerName{}, false},
		{"host,1,x", ServerName{}, false},
		{",1,1", ServerName{}, false},
		{"host", ServerName{}, false},
		{"host:0", ServerName{}, false},
		{"host:70000", ServerName{}, false},
		{":16020", ServerName{}, false},
	}
	for _, tt := range tests {
		got, err := ParseServerName(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseServerName(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	s := ServerName{"h", 1, 2}
	if s.String() != "h,1,2" || s.Addr() != "h:1" {
		t.Errorf("String %q Addr %q", s.String(), s.Addr())
	}
}

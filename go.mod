module rangecopy

go 1.25

require google.golang.org/protobuf v1.36.12

require github.com/go-zookeeper/zk v1.0.4 // indirect

package cluster

import (
	"strings"
	"testing"
)

func TestSecretProperty(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret bool
	}{
		{"fs.s3a.access.key", true},
		{"fs.s3a.secret.key", true},
		{"fs.s3a.bucket.logs.secret.key", true},
		{"fs.s3a.session.token", true},
		{"fs.s3a.server-side-encryption.key", true},
		{"fs.s3a.encryption.key", true},
		{"fs.azure.account.key.myaccount.blob.core.windows.net", true},
		{"fs.azure.sas.token", true},
		{"fs.azure.account.oauth2.client.secret", true},
		{"ssl.server.keystore.password", true},
		{"ssl.server.keystore.keypassword", true},
		{"ssl.client.truststore.password", true},
		{"hadoop.security.credstore.java-keystore-provider.password-file", true},
		{"hadoop.security.credential.provider.path", true},
		{"javax.jdo.option.ConnectionPassword", true},
		{"hadoop.http.authentication.signature.secret", true},
		{"dfs.webhdfs.oauth2.refresh.token", true},
		{"my.service.apikey", true},
		{"  FS.S3A.SECRET.KEY  ", true},
		{"kafka.sasl.jaas.config", true},
		// Paths, names and flags: readable.
		{"hbase.regionserver.keytab.file", false},
		{"hbase.rest.authentication.kerberos.keytab", false},
		{"hbase.master.kerberos.principal", false},
		{"dfs.encryption.key.provider.uri", false},
		{"hadoop.security.key.provider.path", false},
		{"hbase.crypto.master.key.name", false},
		{"dfs.block.access.token.enable", false},
		{"hbase.zookeeper.quorum", false},
		{"hbase.rootdir", false},
		{"fs.defaultFS", false},
		{"", false},
	} {
		if got := SecretProperty(tc.name); got != tc.secret {
			t.Errorf("SecretProperty(%q) = %v, want %v", tc.name, got, tc.secret)
		}
	}
}

func TestViewerProperty(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"hbase.zookeeper.quorum", true},
		{"hbase.zookeeper.property.clientPort", true},
		{"zookeeper.znode.parent", true},
		{"hbase.rootdir", true},
		{"fs.defaultFS", true},
		{"dfs.nameservices", true},
		{"dfs.ha.namenodes.ns1", true},
		{"dfs.namenode.rpc-address.ns1.nn1", true},
		{"hbase.io.compress.zstd.codec", true},
		{"fs.s3a.access.key", false},
		{"dfs.namenode.rpc-address.password", false}, // secret wins
		{"hbase.regionserver.keytab.file", false},
		{"dfs.replication", false},
	} {
		if got := ViewerProperty(tc.name); got != tc.ok {
			t.Errorf("ViewerProperty(%q) = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

const secretSite = `<?xml version="1.0"?>
<!-- old key: AKIAOLDOLDOLD -->
<configuration>
  <property><name>fs.defaultFS</name><value>hdfs://nn1:8020</value><description>the default</description></property>
  <property><name>fs.s3a.access.key</name><value>AKIASECRETACCESS</value></property>
  <property><name> fs.s3a.secret.key </name><value> s3cr3t&amp;&lt;xml&gt; </value><final>true</final></property>
  <property><name>hbase.zookeeper.quorum</name><value>zk1,zk2</value></property>
  <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:mysql://hive:dbpass@db:3306/metastore</value></property>
  <property><name>dfs.replication</name><value>3</value></property>
  <property><name>hbase.regionserver.keytab.file</name><value>/etc/hbase.keytab</value></property>
  <property><name>empty.password</name><value></value></property>
</configuration>`

func TestRedactSite(t *testing.T) {
	for _, tc := range []struct {
		r          Redaction
		shown      map[string]string // property: value shown
		neverShown []string
	}{
		{RedactSecrets, map[string]string{
			"fs.defaultFS": "hdfs://nn1:8020", "fs.s3a.access.key": Redacted, "fs.s3a.secret.key": Redacted,
			"hbase.zookeeper.quorum": "zk1,zk2", "javax.jdo.option.ConnectionURL": Redacted, "dfs.replication": "3",
			"hbase.regionserver.keytab.file": "/etc/hbase.keytab", "empty.password": "",
		}, []string{"AKIASECRETACCESS", "s3cr3t", "dbpass", "AKIAOLDOLDOLD", "the default"}},
		{RedactAllButLayout, map[string]string{
			"fs.defaultFS": "hdfs://nn1:8020", "fs.s3a.access.key": Redacted, "fs.s3a.secret.key": Redacted,
			"hbase.zookeeper.quorum": "zk1,zk2", "javax.jdo.option.ConnectionURL": Redacted, "dfs.replication": Redacted,
			"hbase.regionserver.keytab.file": Redacted, "empty.password": "",
		}, []string{"AKIASECRETACCESS", "s3cr3t", "dbpass", "AKIAOLDOLDOLD", "/etc/hbase.keytab"}},
	} {
		t.Run(tc.r.String(), func(t *testing.T) {
			out := RedactSite(secretSite, tc.r)
			props, err := parseProperties(out)
			if err != nil {
				t.Fatalf("the redacted file does not parse: %v\n%s", err, out)
			}
			got := map[string]string{}
			for _, p := range props {
				got[p.Name] = p.Value
			}
			if len(got) != len(tc.shown) {
				t.Errorf("got %d properties, want %d: %v", len(got), len(tc.shown), got)
			}
			for name, want := range tc.shown {
				if got[name] != want {
					t.Errorf("%s = %q, want %q", name, got[name], want)
				}
			}
			for _, s := range tc.neverShown {
				if strings.Contains(out, s) {
					t.Errorf("the redacted file holds %q:\n%s", s, out)
				}
			}
			if !strings.Contains(out, "<final>true</final>") {
				t.Errorf("the final flag is lost:\n%s", out)
			}
			if again := RedactSite(out, tc.r); again != out {
				t.Errorf("redacting twice changes the file:\n%s\nthen\n%s", out, again)
			}
		})
	}
}

func TestRedactSiteUnreadable(t *testing.T) {
	for _, text := range []string{"", "password=hunter2", "<configuration><property><name>x</name><value>hunter2"} {
		if out := RedactSite(text, RedactSecrets); strings.Contains(out, "hunter2") || out != unreadableSite {
			t.Errorf("RedactSite(%q) = %q, want the whole file withheld", text, out)
		}
	}
	if got := RedactSiteFiles(nil, RedactSecrets); got != nil {
		t.Errorf("RedactSiteFiles(nil) = %v", got)
	}
}

func TestRedactURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hdfs://nn1:8020/hbase", "hdfs://nn1:8020/hbase"},
		{"jdbc:mysql://user:pw@db/x", Redacted},
		{"s3a://AKIA:SECRET@bucket/path", Redacted},
		{"http://user@host/x", "http://user@host/x"},
		{"a,b://u:p@h", Redacted},
		{"no url", "no url"},
	} {
		if got := redactURLs(tc.in); got != tc.want {
			t.Errorf("redactURLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestKeepRedacted(t *testing.T) {
	stored := map[string]string{"core-site.xml": secretSite}
	readBack := RedactSiteFiles(stored, RedactSecrets)
	for _, tc := range []struct {
		name      string
		submitted map[string]string
		want      map[string]string // property: value after
		err       string
	}{
		{"read back as is", readBack, map[string]string{"fs.s3a.access.key": "AKIASECRETACCESS", "fs.s3a.secret.key": "s3cr3t&<xml>",
			"javax.jdo.option.ConnectionURL": "jdbc:mysql://hive:dbpass@db:3306/metastore", "dfs.replication": "3"}, ""},
		{"one value changed", map[string]string{"core-site.xml": strings.Replace(readBack["core-site.xml"], "<value>3</value>", "<value>2</value>", 1)},
			map[string]string{"fs.s3a.access.key": "AKIASECRETACCESS", "dfs.replication": "2"}, ""},
		{"a new secret", map[string]string{"core-site.xml": strings.Replace(readBack["core-site.xml"], "<name>fs.s3a.access.key</name>\n    <value>(redacted)</value>",
			"<name>fs.s3a.access.key</name>\n    <value>AKIANEW</value>", 1)}, map[string]string{"fs.s3a.access.key": "AKIANEW", "fs.s3a.secret.key": "s3cr3t&<xml>"}, ""},
		{"no marker", map[string]string{"core-site.xml": "<configuration><property><name>a.password</name><value>pw</value></property></configuration>"},
			map[string]string{"a.password": "pw"}, ""},
		{"marker with nothing stored", map[string]string{"hbase-site.xml": readBack["core-site.xml"]}, nil,
			"site file hbase-site.xml: property fs.s3a.access.key holds \"(redacted)\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KeepRedacted(tc.submitted, stored)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			site, err := ParseSite(got)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.want {
				if site[name] != want {
					t.Errorf("%s = %q, want %q", name, site[name], want)
				}
			}
		})
	}
}

func FuzzRedactSite(f *testing.F) {
	f.Add(secretSite)
	f.Add("<configuration/>")
	f.Add("<configuration><property><name>a.secret</name><value>x</value></property><property><name>a.secret</name><value>y</value></property></configuration>")
	f.Add("<a><property><name>fs.s3a.access.key</name><value>k</value><value>k2</value></property></a>")
	f.Add("<configuration><property><name>x</name><value><![CDATA[u://a:b@c]]></value></property></configuration>")
	f.Fuzz(func(t *testing.T, text string) {
		for _, r := range []Redaction{RedactSecrets, RedactAllButLayout} {
			out := RedactSite(text, r)
			in, err := parseProperties(text)
			if err != nil {
				if out != unreadableSite {
					t.Fatalf("an unreadable file is shown: %q", out)
				}
				continue
			}
			props, err := parseProperties(out)
			if err != nil {
				t.Fatalf("the redacted file does not parse: %v\n%q", err, out)
			}
			if len(props) != len(in) {
				t.Fatalf("%d properties in, %d out", len(in), len(props))
			}
			for i, p := range props {
				if p.Name != in[i].Name {
					t.Fatalf("property %d: name %q became %q", i, in[i].Name, p.Name)
				}
				hidden := SecretProperty(p.Name) || (r == RedactAllButLayout && !ViewerProperty(p.Name))
				if hidden && in[i].Value != "" && p.Value != Redacted {
					t.Fatalf("%s: %s = %q is shown as %q", r, p.Name, in[i].Value, p.Value)
				}
				if !hidden && p.Value != in[i].Value && p.Value != Redacted {
					t.Fatalf("%s: %s = %q is shown changed as %q", r, p.Name, in[i].Value, p.Value)
				}
			}
			if again := RedactSite(out, r); again != out {
				t.Fatalf("redacting twice changes the file: %q then %q", out, again)
			}
		}
	})
}

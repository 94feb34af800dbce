package cluster

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// Redacted is what a redacted site file shows in place of a value it withholds. Submitted
// back (a file read from the API, edited and registered again), it keeps the value stored.
const Redacted = "(redacted)"

// unreadableSite is what a redacted copy of a file that does not parse as a site file says:
// such a file is withheld whole, for its bytes could hold anything.
const unreadableSite = "<!-- rangecopy: this file does not parse as a Hadoop site file; its contents are withheld -->\n"

// Redaction says how much of a site file a reader may see.
type Redaction int

const (
	// RedactSecrets withholds the values of secret-bearing properties (SecretProperty) and
	// the passwords of URLs in other values: what an admin reads.
	RedactSecrets Redaction = iota
	// RedactAllButLayout withholds every value but those that say where the cluster is
	// (ViewerProperty): what viewers and operators read.
	RedactAllButLayout
)

// String names the redaction.
func (r Redaction) String() string {
	switch r {
	case RedactSecrets:
		return "secrets"
	case RedactAllButLayout:
		return "all but layout"
	}
	return fmt.Sprintf("Redaction(%d)", int(r))
}

// secretWords are the parts of a property name that mark its value as secret wherever they
// appear in it (ssl.server.keystore.password, fs.s3a.secret.key,
// hadoop.security.credstore.java-keystore-provider.password-file, sasl.jaas.config).
func secretWords() []string {
	return []string{"password", "passwd", "pwd", "secret", "credential", "credstore", "jaas"}
}

// SecretProperty reports whether a property's value is a secret: a password (of a keystore,
// a truststore, a database), a secret or access key (fs.s3a.access.key,
// fs.azure.account.key.ACCOUNT, fs.s3a.server-side-encryption.key), a token
// (fs.s3a.session.token) or credentials. Paths to secrets are not secrets: a keytab
// (hbase.regionserver.keytab.file), a key provider (dfs.encryption.key.provider.uri) or a
// key's alias name stay readable, as do flags such as dfs.block.access.token.enable.
func SecretProperty(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, w := range secretWords() {
		if strings.Contains(n, w) {
			return true
		}
	}
	if strings.HasPrefix(n, "fs.azure.account.key") || (strings.HasPrefix(n, "fs.s3a.") && strings.Contains(n, "key") && !strings.Contains(n, "keytab")) {
		return true
	}
	segs := strings.FieldsFunc(n, func(r rune) bool { return r == '.' || r == '-' || r == '_' })
	if len(segs) == 0 {
		return false
	}
	last := segs[len(segs)-1]
	for _, end := range []string{"key", "keys", "token", "tokens"} {
		// access.key, secretkey, apikey, session.token, sastoken, but not keytab or
		// token.enable.
		if strings.HasSuffix(last, end) {
			return true
		}
	}
	return false
}

// ViewerProperty reports whether a property says where a cluster is, what a reader who is
// not an admin needs to understand a registered cluster: its ZooKeeper quorum and parent,
// its root folder and the NameNodes it lives on, its zstd codec. Secret properties never
// are.
func ViewerProperty(name string) bool {
	n := strings.TrimSpace(name)
	if SecretProperty(n) {
		return false
	}
	switch n {
	case "hbase.zookeeper.quorum", "hbase.zookeeper.property.clientPort", "zookeeper.znode.parent",
		"hbase.rootdir", "fs.defaultFS", "dfs.nameservices", "hbase.io.compress.zstd.codec", "hbase.cluster.distributed":
		return true
	}
	return strings.HasPrefix(n, "dfs.ha.namenodes.") || strings.HasPrefix(n, "dfs.namenode.rpc-address.")
}

// siteProperty is one property of a site file as the engine reads it.
type siteProperty struct {
	Name  string `xml:"name"`
	Value string `xml:"value"`
	Final string `xml:"final,omitempty"`
}

// parseProperties reads the properties of one site file, in order, as decodeSite does.
func parseProperties(text string) ([]siteProperty, error) {
	var conf struct {
		Properties []siteProperty `xml:"property"`
	}
	if err := xml.NewDecoder(strings.NewReader(text)).Decode(&conf); err != nil {
		return nil, err
	}
	for i := range conf.Properties {
		p := &conf.Properties[i]
		p.Name, p.Value, p.Final = strings.TrimSpace(p.Name), strings.TrimSpace(p.Value), strings.TrimSpace(p.Final)
	}
	return conf.Properties, nil
}

// siteText writes properties as a site file: a <configuration> of <property> elements,
// with nothing else (no comments, no descriptions).
func siteText(props []siteProperty) string {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n")
	for _, p := range props {
		b.WriteString("  <property>\n    <name>")
		_ = xml.EscapeText(&b, []byte(p.Name))
		b.WriteString("</name>\n    <value>")
		_ = xml.EscapeText(&b, []byte(p.Value))
		b.WriteString("</value>\n")
		if p.Final != "" {
			b.WriteString("    <final>")
			_ = xml.EscapeText(&b, []byte(p.Final))
			b.WriteString("</final>\n")
		}
		b.WriteString("  </property>\n")
	}
	b.WriteString("</configuration>\n")
	return b.String()
}

// redactValue is what a reader with redaction r sees of a property's value.
func redactValue(name, value string, r Redaction) string {
	if value == "" {
		return ""
	}
	if SecretProperty(name) || (r == RedactAllButLayout && !ViewerProperty(name)) {
		return Redacted
	}
	return redactURLs(value)
}

// redactURLs withholds the password of every URL with one in a value
// (jdbc:mysql://user:pw@host/db, s3a://key:secret@bucket): the whole value, since where the
// URL ends is a guess.
func redactURLs(value string) string {
	for rest := value; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return value
		}
		rest = rest[i+3:]
		auth := rest
		if j := strings.IndexAny(auth, "/?# \t\n,;"); j >= 0 {
			auth = auth[:j]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 && strings.Contains(auth[:at], ":") {
			return Redacted
		}
	}
}

// RedactSite is a site file as a reader with redaction r may see it: its properties in
// order, each value withheld (Redacted) unless r lets it through, rewritten as a plain
// <configuration> without comments or descriptions (which may hold anything). A file that
// does not parse is withheld whole.
func RedactSite(text string, r Redaction) string {
	props, err := parseProperties(text)
	if err != nil {
		return unreadableSite
	}
	for i := range props {
		props[i].Value = redactValue(props[i].Name, props[i].Value, r)
	}
	return siteText(props)
}

// RedactSiteFiles is RedactSite of each file; nil stays nil.
func RedactSiteFiles(files map[string]string, r Redaction) map[string]string {
	if files == nil {
		return nil
	}
	out := make(map[string]string, len(files))
	for name, text := range files {
		out[name] = RedactSite(text, r)
	}
	return out
}

// HasRedacted reports whether a site file holds a property whose value is the marker
// Redacted, as a file read back from the API does.
func HasRedacted(text string) bool {
	props, err := parseProperties(text)
	if err != nil {
		return false
	}
	for _, p := range props {
		if p.Value == Redacted {
			return true
		}
	}
	return false
}

// KeepRedacted is the site files submitted to replace stored ones, with every property
// whose value is the marker Redacted given back its stored value (from the stored file of
// the same name; the last of that name, as the engine reads it), so that a file read from
// the API, edited and registered again does not overwrite a secret with the marker. Files
// without the marker pass as they are; a file with it is rewritten as RedactSite writes
// one. A marker with no stored value to keep is an error naming the file and property.
func KeepRedacted(submitted, stored map[string]string) (map[string]string, error) {
	var out map[string]string
	for name, text := range submitted {
		props, err := parseProperties(text)
		if err != nil {
			continue // ParseSite reports it
		}
		marked := false
		for _, p := range props {
			marked = marked || p.Value == Redacted
		}
		if !marked {
			continue
		}
		old := map[string]string{}
		if s, ok := stored[name]; ok {
			sp, err := parseProperties(s)
			if err == nil {
				for _, p := range sp {
					old[p.Name] = p.Value
				}
			}
		}
		for i := range props {
			if props[i].Value != Redacted {
				continue
			}
			v, ok := old[props[i].Name]
			if !ok || v == "" || v == Redacted {
				return nil, fmt.Errorf("site file %s: property %s holds %q (a value withheld when read) and no value is stored to keep: give its value",
					name, props[i].Name, Redacted)
			}
			props[i].Value = v
		}
		if out == nil {
			out = make(map[string]string, len(submitted))
			for n, t := range submitted {
				out[n] = t
			}
		}
		out[name] = siteText(props)
	}
	if out == nil {
		return submitted, nil
	}
	return out, nil
}

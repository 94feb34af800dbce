package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// deployUse is one use of rangecopy found in a deployment file: the command it runs and the
// flags and environment variables it is given.
type deployUse struct {
	where    string   // file and line, or file and container
	command  []string // "token", "create"; nil: the file's variables are for any command
	flags    []string // as written, without values: "--zk", "-v"
	envs     []string // RANGECOPY_* variables it gets
	expanded []string // variables its command line expands ($(X), ${X}, $X): allowed whatever they are
}

// deployFiles are the files TestDeployFlags reads: everything under deploy/ and the runbook.
func deployFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir("../../deploy", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[strings.TrimPrefix(filepath.ToSlash(p), "../../")] = b
		return err
	})
	if err != nil {
		t.Fatalf("read deploy/: %v", err)
	}
	b, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatalf("read the runbook: %v", err)
	}
	files["docs/operations.md"] = b
	return files
}

// TestDeployFlags fails for every flag given to a rangecopy command, and every RANGECOPY_*
// variable set for one, in deploy/ and docs/operations.md that the command does not take.
func TestDeployFlags(t *testing.T) {
	root := newRootCommand(io.Discard, io.Discard)
	files := deployFiles(t)
	if len(files) < 10 {
		t.Fatalf("found only %d deployment files", len(files))
	}
	var uses []deployUse
	var problems []string
	for _, name := range sortedKeys(files) {
		u, p := textUses(root, name, files[name])
		uses, problems = append(uses, u...), append(problems, p...)
	}
	u, p := yamlUses(root, files)
	uses, problems = append(uses, u...), append(problems, p...)
	checked := 0
	for _, u := range uses {
		problems = append(problems, checkUse(root, u)...)
		checked += len(u.flags) + len(u.envs)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The files use rangecopy a lot; finding little means the scanners broke.
	if len(uses) < 20 || checked < 50 {
		t.Errorf("found only %d uses of rangecopy with %d flags and variables: the scanners missed them", len(uses), checked)
	}
	t.Logf("checked %d uses of rangecopy, %d flags and variables, in %d files", len(uses), checked, len(files))
}

// TestDeployFlagsCatchTypos checks the checker: a wrong flag, a variable the command does not
// read, and a config key that is no flag are each reported.
func TestDeployFlagsCatchTypos(t *testing.T) {
	root := newRootCommand(io.Discard, io.Discard)
	files := map[string][]byte{
		"deploy/systemd/worker.env": []byte("RANGECOPY_ZK=zk1\nRANGECOPY_CAPACITY=4\nWORKER_OPTS=--capacity 4 --capcity 8\n"),
		"deploy/x.md":               []byte("RANGECOPY_CATALOG=x rangecopy server --zk zk1 --listne :80 \\\n  -v --workers 2\nrangecopy token create --name a --role admin --catalog=$U\n"),
		"deploy/server.yaml":        []byte("zk: zk1\n# listen: :8080\n# lisen: :8080\nworker: 3\n"),
		"deploy/k.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: env}
data: {RANGECOPY_ZK: zk1, RANGECOPY_ZK_ROOT: /x}
---
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: w
          image: registry.example.com/rangecopy:v1
          args: [worker, --capacity=4, --metric-addr=:9464, "--catalog=$(RANGECOPY_CATALOG)"]
          envFrom: [{configMapRef: {name: env}}, {secretRef: {name: missing}}]
          env: [{name: RANGECOPY_CATALOG, value: x}, {name: RANGECOPY_ID, value: y}]
`),
	}
	var uses []deployUse
	var problems []string
	for _, name := range sortedKeys(files) {
		u, p := textUses(root, name, files[name])
		uses, problems = append(uses, u...), append(problems, p...)
	}
	u, p := yamlUses(root, files)
	uses, problems = append(uses, u...), append(problems, p...)
	for _, u := range uses {
		problems = append(problems, checkUse(root, u)...)
	}
	want := []string{
		"deploy/k.yaml: container w: rangecopy worker does not read $RANGECOPY_ID",
		"deploy/k.yaml: container w: rangecopy worker does not read $RANGECOPY_ZK_ROOT",
		"deploy/k.yaml: container w: rangecopy worker has no flag --catalog",
		"deploy/k.yaml: container w: rangecopy worker has no flag --metric-addr",
		"deploy/k.yaml: container w: secretRef missing: no Secret of that name under deploy/",
		"deploy/server.yaml:3: rangecopy server has no flag --lisen",
		"deploy/server.yaml:4: rangecopy server has no flag --worker",
		"deploy/systemd/worker.env: rangecopy worker does not read $RANGECOPY_CAPACITY",
		"deploy/systemd/worker.env: rangecopy worker has no flag --capcity",
		"deploy/x.md:1: rangecopy server has no flag --listne",
	}
	slices.Sort(problems)
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(problems, "\n  "), strings.Join(want, "\n  "))
	}
}

var (
	envVar    = regexp.MustCompile(`\bRANGECOPY_[A-Z0-9_]+\b`)
	expansion = regexp.MustCompile(`\$\(?\{?(RANGECOPY_[A-Z0-9_]+)`)
	// commentedKey is a setting left commented out in a config file: "# listen: :8080".
	commentedKey = regexp.MustCompile(`^#\s?([a-z][a-z0-9-]*):(\s|$)`)
)

// invocations are where the words after each "rangecopy " of a line start (also
// /usr/local/bin/rangecopy, bin/rangecopy, "sudo -u rangecopy rangecopy token").
func invocations(l string) []int {
	var at []int
	for i := 0; ; {
		j := strings.Index(l[i:], "rangecopy")
		if j < 0 {
			return at
		}
		start, end := i+j, i+j+len("rangecopy")
		if (start == 0 || strings.ContainsRune(" \t/\"'`(", rune(l[start-1]))) && end < len(l) && (l[end] == ' ' || l[end] == '\t') {
			at = append(at, end)
		}
		i = end
	}
}

// logicalLines joins lines continued with a backslash; each comes with its first line's number.
func logicalLines(b []byte) (lines []string, numbers []int) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	cur, start, n := "", 0, 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if cur == "" {
			start = n
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			cur += s + " "
			continue
		}
		lines, numbers = append(lines, cur+l), append(numbers, start)
		cur = ""
	}
	if cur != "" {
		lines, numbers = append(lines, cur), append(numbers, start)
	}
	return lines, numbers
}

// commandPath reads the command at the start of words ("token", "create", ...), returning it
// and the words after it; nil when words[0] is no command of rangecopy.
func commandPath(root *cobra.Command, words []string) ([]string, []string) {
	var path []string
	c := root
	for len(words) > 0 {
		sub := findSub(c, words[0])
		if sub == nil {
			break
		}
		path, c, words = append(path, sub.Name()), sub, words[1:]
	}
	return path, words
}

func findSub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// flagWords are the flags among a command's words, until a word that ends the command
// (a pipe, a closing quote).
func flagWords(words []string) []string {
	var flags []string
	for _, w := range words {
		end := strings.ContainsAny(w, "\"`|;)>")
		w = strings.TrimRight(w, "\"`|;)>.,:")
		if w == "|" || w == "&&" || w == "||" {
			break
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 && w != "--" {
			name, _, _ := strings.Cut(w, "=")
			flags = append(flags, name)
		}
		if end {
			break
		}
	}
	return flags
}

// textUses finds the uses of rangecopy in a file read as text: command lines
// ("rangecopy server --zk ..."), the variables of an env file (deploy/systemd/<command>.env,
// flags in them too) or of a systemd unit (its ExecStart's command), the keys of a config file
// (<command>.yaml, commented-out ones too), and any other RANGECOPY_* variable, which some
// command must read.
func textUses(root *cobra.Command, name string, b []byte) ([]deployUse, []string) {
	base := path.Base(name)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	var uses []deployUse
	var problems []string
	lines, numbers := logicalLines(b)
	var unitCommand []string
	var unitEnvFile string
	for i, l := range lines {
		where := fmt.Sprintf("%s:%d", name, numbers[i])
		owned := false
		for _, at := range invocations(l) {
			cmd, rest := commandPath(root, strings.Fields(l[at:]))
			if cmd == nil {
				continue
			}
			u := deployUse{where: where, command: cmd, flags: flagWords(rest), envs: envVar.FindAllString(l, -1)}
			for _, e := range expansion.FindAllStringSubmatch(l, -1) {
				u.expanded = append(u.expanded, e[1])
			}
			uses, owned = append(uses, u), true
			if ext == ".service" && strings.HasPrefix(l, "ExecStart=") {
				unitCommand = cmd
			}
		}
		if v, ok := strings.CutPrefix(l, "EnvironmentFile="); ok {
			unitEnvFile = path.Base(strings.TrimPrefix(v, "-"))
		}
		if owned {
			continue
		}
		switch {
		case ext == ".env" && findSub(root, stem) != nil:
			u := deployUse{where: name, command: []string{stem}, envs: envVar.FindAllString(l, -1)}
			if !strings.HasPrefix(strings.TrimSpace(l), "#") {
				u.flags = flagWords(strings.Fields(strings.ReplaceAll(l, "=", " = ")))
			}
			uses = append(uses, u)
		case ext == ".yaml" && findSub(root, stem) != nil && strings.HasPrefix(name, "deploy/") && !strings.Contains(name, "/kubernetes/"):
			uses = append(uses, configKeyUses(root, where, stem, l)...)
		case ext == ".service":
			// Checked below, once the unit's ExecStart is known.
		default:
			if vs := envVar.FindAllString(l, -1); len(vs) > 0 {
				uses = append(uses, deployUse{where: where, envs: vs})
			}
		}
	}
	if ext == ".service" {
		if unitCommand == nil {
			return uses, append(problems, name+": no ExecStart running a rangecopy command")
		}
		u := deployUse{where: name, command: unitCommand, envs: envVar.FindAllString(string(b), -1)}
		uses = append(uses, u)
		if want := unitCommand[0] + ".env"; unitEnvFile != "" && unitEnvFile != want {
			problems = append(problems, fmt.Sprintf("%s: EnvironmentFile %s is not %s, the file of rangecopy %s", name, unitEnvFile, want, unitCommand[0]))
		}
	}
	return uses, problems
}

// configKeyUses reads a line of a config file of command: a key, set or commented out, is a
// flag. Prose comments have no "word:" at their start.
func configKeyUses(root *cobra.Command, where, command, line string) []deployUse {
	var key string
	if m := commentedKey.FindStringSubmatch(line); m != nil {
		key = m[1]
	} else if k, _, ok := strings.Cut(line, ":"); ok && k != "" && !strings.HasPrefix(k, "#") && !strings.HasPrefix(k, " ") && !strings.HasPrefix(k, "-") {
		key = k
	}
	if key == "" {
		return nil
	}
	if key == "config" {
		return []deployUse{{where: where, command: []string{command}, flags: []string{"--config-in-a-config-file"}}}
	}
	return []deployUse{{where: where, command: []string{command}, flags: []string{"--" + key}}}
}

// yamlUses finds the uses of rangecopy in the Kubernetes manifests: each container running
// rangecopy (by its command, or its image when it has none) with its args, env and envFrom
// (the keys of the ConfigMaps and Secrets it names), and the <command>.yaml config files held
// in ConfigMaps.
func yamlUses(root *cobra.Command, files map[string][]byte) ([]deployUse, []string) {
	type doc struct {
		file string
		v    map[string]any
	}
	var docs []doc
	var problems []string
	for _, name := range sortedKeys(files) {
		if ext := path.Ext(name); ext != ".yaml" && ext != ".yml" {
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(files[name]))
		for {
			var v map[string]any
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: not YAML: %v", name, err))
				break
			}
			if v != nil {
				docs = append(docs, doc{name, v})
			}
		}
	}
	keys := map[string][]string{} // "ConfigMap/name" -> keys
	var uses []deployUse
	for _, d := range docs {
		kind, _ := d.v["kind"].(string)
		if kind != "ConfigMap" && kind != "Secret" {
			continue
		}
		meta, _ := d.v["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		for _, field := range []string{"data", "stringData"} {
			data, _ := d.v[field].(map[string]any)
			for k, val := range data {
				keys[kind+"/"+name] = append(keys[kind+"/"+name], k)
				stem := strings.TrimSuffix(k, path.Ext(k))
				if s, ok := val.(string); ok && path.Ext(k) == ".yaml" && findSub(root, stem) != nil {
					lines, _ := logicalLines([]byte(s))
					for _, l := range lines {
						uses = append(uses, configKeyUses(root, fmt.Sprintf("%s: %s %s", d.file, kind, name+"/"+k), stem, strings.TrimSpace(l))...)
					}
				}
			}
		}
	}
	for _, d := range docs {
		for _, c := range containers(d.v) {
			u, p := containerUse(root, d.file, c, keys)
			problems = append(problems, p...)
			if u != nil {
				uses = append(uses, *u)
			}
		}
	}
	return uses, problems
}

// containers are the containers of every pod template in v.
func containers(v any) []map[string]any {
	var out []map[string]any
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if k == "containers" || k == "initContainers" {
				list, _ := t[k].([]any)
				for _, c := range list {
					if m, ok := c.(map[string]any); ok {
						out = append(out, m)
					}
				}
				continue
			}
			out = append(out, containers(t[k])...)
		}
	case []any:
		for _, e := range t {
			out = append(out, containers(e)...)
		}
	}
	return out
}

// containerUse is what a container gives rangecopy; nil when it does not run rangecopy.
func containerUse(root *cobra.Command, file string, c map[string]any, keys map[string][]string) (*deployUse, []string) {
	strs := func(k string) []string {
		list, _ := c[k].([]any)
		var out []string
		for _, e := range list {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	name, _ := c["name"].(string)
	image, _ := c["image"].(string)
	command, args := strs("command"), strs("args")
	if len(command) > 0 {
		if path.Base(command[0]) != "rangecopy" {
			return nil, nil
		}
		command = command[1:]
	} else if img, _, _ := strings.Cut(path.Base(image), ":"); img != "rangecopy" {
		return nil, nil
	}
	argv := append(command, args...)
	where := fmt.Sprintf("%s: container %s", file, name)
	cmd, rest := commandPath(root, argv)
	if cmd == nil {
		return nil, []string{where + ": runs no rangecopy command: " + strings.Join(argv, " ")}
	}
	u := &deployUse{where: where, command: cmd}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") && a != "--" {
			n, _, _ := strings.Cut(a, "=")
			u.flags = append(u.flags, n)
		}
		for _, e := range expansion.FindAllStringSubmatch(a, -1) {
			u.expanded = append(u.expanded, e[1])
		}
	}
	env, _ := c["env"].([]any)
	for _, e := range env {
		m, _ := e.(map[string]any)
		if n, _ := m["name"].(string); strings.HasPrefix(n, "RANGECOPY_") {
			u.envs = append(u.envs, n)
		}
	}
	var problems []string
	from, _ := c["envFrom"].([]any)
	for _, f := range from {
		m, _ := f.(map[string]any)
		for ref, kind := range map[string]string{"configMapRef": "ConfigMap", "secretRef": "Secret"} {
			r, ok := m[ref].(map[string]any)
			if !ok {
				continue
			}
			n, _ := r["name"].(string)
			ks, ok := keys[kind+"/"+n]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: %s %s: no %s of that name under deploy/", where, ref, n, kind))
			}
			for _, k := range ks {
				if strings.HasPrefix(k, "RANGECOPY_") {
					u.envs = append(u.envs, k)
				}
			}
		}
	}
	return u, problems
}

// checkUse returns what of u its command does not take.
func checkUse(root *cobra.Command, u deployUse) []string {
	var problems []string
	if u.command == nil {
		for _, e := range u.envs {
			if !readsEnvAnywhere(root, e) {
				problems = append(problems, fmt.Sprintf("%s: no rangecopy command reads $%s", u.where, e))
			}
		}
		return problems
	}
	c := root
	for _, n := range u.command {
		c = findSub(c, n)
	}
	label := "rangecopy " + strings.Join(u.command, " ")
	for _, f := range u.flags {
		if lookupFlag(c, f) == nil {
			problems = append(problems, fmt.Sprintf("%s: %s has no flag %s", u.where, label, f))
		}
	}
	for _, e := range u.envs {
		if !slices.Contains(u.expanded, e) && !readsEnv(c, e) {
			problems = append(problems, fmt.Sprintf("%s: %s does not read $%s", u.where, label, e))
		}
	}
	return slices.Compact(problems)
}

// lookupFlag finds a flag as written ("--zk", "-v") among c's own and inherited flags.
func lookupFlag(c *cobra.Command, written string) *pflag.Flag {
	c.InitDefaultHelpFlag()
	for _, fs := range []*pflag.FlagSet{c.Flags(), c.InheritedFlags()} {
		if n, ok := strings.CutPrefix(written, "--"); ok {
			if f := fs.Lookup(n); f != nil {
				return f
			}
		} else if n := strings.TrimPrefix(written, "-"); len(n) == 1 {
			if f := fs.ShorthandLookup(n); f != nil {
				return f
			}
		}
	}
	return nil
}

// readsEnv tells whether c takes a value from the variable: $RANGECOPY_ZK for --zk (every
// command with a registry), and a command with --config reads every flag from the environment
// too (applySettings).
func readsEnv(c *cobra.Command, name string) bool {
	fs := c.Flags()
	if name == zkEnv && fs.Lookup("zk") != nil {
		return true
	}
	if (name == serverEnv || name == tokenEnv) && c.Flags().Lookup("server") != nil {
		return true // apiFlags: the server's URL and the token itself
	}
	// rangecopy token's actions take their flags from the environment as the server does.
	fromEnv := fs.Lookup("config") != nil || (c.Parent() != nil && c.Parent().Name() == "token" && c.Parent().Parent() == c.Root())
	if !fromEnv {
		return false
	}
	found := false
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "config" && f.Name != "help" && envName(f.Name) == name {
			found = true
		}
	})
	return found
}

// readsEnvAnywhere tells whether some command reads the variable.
func readsEnvAnywhere(c *cobra.Command, name string) bool {
	if readsEnv(c, name) {
		return true
	}
	for _, s := range c.Commands() {
		if readsEnvAnywhere(s, name) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

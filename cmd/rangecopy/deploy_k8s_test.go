package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// kubeDocs are the YAML documents of deploy/kubernetes, by file.
func kubeDocs(t *testing.T) map[string][]map[string]any {
	t.Helper()
	out := map[string][]map[string]any{}
	for name, b := range deployFiles(t) {
		if !strings.HasPrefix(name, "deploy/kubernetes/") || path.Ext(name) != ".yaml" {
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var v map[string]any
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if v != nil {
				out[name] = append(out[name], v)
			}
		}
	}
	return out
}

// get walks v along keys (map keys, or list indexes as ints).
func get(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestDeployKustomization: the kustomization pins the image to a tag that is not "latest",
// lists only files that exist, and makes its Secrets from files that are never committed
// (the CHANGE-ME examples of secret.yaml are not applied), covering every Secret a
// container of its resources reads.
func TestDeployKustomization(t *testing.T) {
	docs := kubeDocs(t)
	k := docs["deploy/kubernetes/kustomization.yaml"]
	if len(k) != 1 {
		t.Fatalf("kustomization.yaml: %d documents", len(k))
	}
	kz := k[0]
	images, _ := kz["images"].([]any)
	if len(images) == 0 {
		t.Error("kustomization.yaml sets no image tag")
	}
	for _, im := range images {
		tag := fmt.Sprint(get(im, "newTag"))
		if tag == "" || tag == "<nil>" || strings.EqualFold(tag, "latest") {
			t.Errorf("image %v: newTag %q: want a pinned release tag, not latest", get(im, "name"), tag)
		}
	}
	generated := map[string]bool{}
	gens, _ := get(kz, "secretGenerator").([]any)
	for _, g := range gens {
		generated[fmt.Sprint(get(g, "name"))] = true
		var srcs []string
		for _, field := range []string{"envs", "files"} {
			l, _ := get(g, field).([]any)
			for _, s := range l {
				_, file, _ := strings.Cut(fmt.Sprint(s), "=")
				if file == "" {
					file = fmt.Sprint(s)
				}
				srcs = append(srcs, file)
			}
		}
		for _, s := range srcs {
			if !strings.HasPrefix(s, "secrets/") {
				t.Errorf("secret %v from %s: want it under secrets/, which .gitignore keeps out", get(g, "name"), s)
			}
		}
	}
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil || !slices.Contains(strings.Split(string(ignore), "\n"), "/deploy/kubernetes/secrets/") {
		t.Errorf(".gitignore does not keep deploy/kubernetes/secrets/ out (%v)", err)
	}
	if get(kz, "generatorOptions", "disableNameSuffixHash") != true {
		t.Error("generated Secrets get a hash suffix the manifests do not name")
	}
	resources, _ := kz["resources"].([]any)
	for _, r := range resources {
		name := "deploy/kubernetes/" + fmt.Sprint(r)
		if _, ok := docs[name]; !ok {
			t.Errorf("kustomization.yaml lists %s, which is no YAML file there", r)
		}
		if r == "secret.yaml" {
			t.Error("kustomization.yaml applies secret.yaml and its CHANGE-ME placeholders")
		}
		for _, d := range docs[name] {
			for _, c := range containers(d) {
				from, _ := c["envFrom"].([]any)
				for _, f := range from {
					if n := get(f, "secretRef", "name"); n != nil && !generated[fmt.Sprint(n)] {
						t.Errorf("%s: container %v reads Secret %v, which the kustomization does not make", name, c["name"], n)
					}
				}
			}
		}
	}
}

// TestDeployProbes: every rangecopy container's probes are HTTP checks of what the process
// serves: the server's /api/v1/healthz and /readyz on its API port, the worker's /healthz
// (its ZooKeeper session) on the port of its --metrics-addr; no bare TCP check.
func TestDeployProbes(t *testing.T) {
	probes := 0
	for file, ds := range kubeDocs(t) {
		for _, d := range ds {
			for _, c := range containers(d) {
				args, _ := c["args"].([]any)
				if len(args) == 0 || !strings.HasPrefix(fmt.Sprint(c["image"]), "rangecopy") {
					continue
				}
				cmd := fmt.Sprint(args[0])
				ports := map[string]string{} // name -> containerPort
				cports, _ := c["ports"].([]any)
				for _, p := range cports {
					ports[fmt.Sprint(get(p, "name"))] = fmt.Sprint(get(p, "containerPort"))
				}
				metricsPort := ""
				for _, a := range args {
					if v, ok := strings.CutPrefix(fmt.Sprint(a), "--metrics-addr="); ok {
						_, metricsPort, _ = net.SplitHostPort(v)
					}
				}
				for _, kind := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
					p := c[kind]
					if p == nil {
						continue
					}
					probes++
					where := fmt.Sprintf("%s: %s %v: %s", file, cmd, c["name"], kind)
					if get(p, "tcpSocket") != nil {
						t.Errorf("%s: a TCP check passes while the process is stuck; want an HTTP health endpoint", where)
						continue
					}
					pth, port := fmt.Sprint(get(p, "httpGet", "path")), fmt.Sprint(get(p, "httpGet", "port"))
					switch cmd {
					case "server":
						if pth != "/api/v1/healthz" && pth != "/api/v1/readyz" {
							t.Errorf("%s: path %s: the server serves /api/v1/healthz and /api/v1/readyz", where, pth)
						}
					case "worker":
						if pth != "/healthz" {
							t.Errorf("%s: path %s: the worker serves /healthz", where, pth)
						}
						if ports[port] == "" || ports[port] != metricsPort {
							t.Errorf("%s: port %s (%s) is not the --metrics-addr port %q", where, port, ports[port], metricsPort)
						}
					}
				}
			}
		}
	}
	if probes < 4 {
		t.Errorf("found only %d probes", probes)
	}
}

// TestDeploySecretPlaceholdersRefused: a shipped example catalog URL that still holds
// CHANGE-ME makes rangecopy server refuse to start (exit 2, before connecting to anything).
func TestDeploySecretPlaceholdersRefused(t *testing.T) {
	serverEnvClean(t)
	found := 0
	for file, ds := range kubeDocs(t) {
		for _, d := range ds {
			url, _ := get(d, "stringData", "RANGECOPY_CATALOG").(string)
			if d["kind"] != "Secret" || !strings.Contains(url, placeholder) {
				continue
			}
			found++
			t.Setenv("RANGECOPY_CATALOG", url)
			var errb bytes.Buffer
			code := run(t.Context(), []string{"server", "--zk", closedPort(t), "--data-dir", t.TempDir()}, io.Discard, &errb)
			if code != exitUsage || !strings.Contains(errb.String(), "still holds the placeholder CHANGE-ME") {
				t.Errorf("%s: server with its catalog URL: exit %d, %q", file, code, errb.String())
			}
		}
	}
	if found == 0 {
		t.Fatal("no example Secret holds CHANGE-ME: deploy/kubernetes/secret.yaml shows the catalog URL's placeholder, which this test refuses")
	}
}

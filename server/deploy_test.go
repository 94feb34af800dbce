package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"

	"rangecopy/metrics"
	"rangecopy/testenv"
)

// The shipped monitoring files: Prometheus alerting rules with their promtool tests, and
// the Grafana dashboard.
var (
	alertsFile     = filepath.Join("..", "deploy", "prometheus", "alerts.yaml")
	alertTestsFile = filepath.Join("..", "deploy", "prometheus", "alerts_test.yaml")
	grafanaFile    = filepath.Join("..", "deploy", "grafana", "rangecopy.json")
)

// promtool is the path of Prometheus's promtool ($RANGECOPY_TEST_PROMTOOL, else on the
// PATH; make deps installs it). Without it the test is skipped, and fails in CI.
func promtool(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RANGECOPY_TEST_PROMTOOL"); p != "" {
		return p
	}
	p, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool is not installed (make deps installs it; RANGECOPY_TEST_PROMTOOL names it elsewhere)"
		if testenv.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// runPromtool runs promtool with args in dir and fails the test with its output if it fails.
func runPromtool(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), promtool(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
}

// ruleFile is the part of a Prometheus rule file (or of a promtool test file) read here.
type ruleFile struct {
	Groups []struct {
		Rules []struct {
			Alert string `yaml:"alert"`
			Expr  string `yaml:"expr"`
		} `yaml:"rules"`
	} `yaml:"groups"`
	Tests []struct {
		InputSeries []struct {
			Series string `yaml:"series"`
		} `yaml:"input_series"`
		AlertRuleTest []struct {
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

func readRuleFile(t *testing.T, path string) ruleFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// TestAlertRules: the shipped alerting rules are valid and pass their promtool tests, and
// every rule has a test where it fires and one where it does not.
func TestAlertRules(t *testing.T) {
	dir := filepath.Dir(alertsFile)
	runPromtool(t, dir, "check", "rules", filepath.Base(alertsFile))
	runPromtool(t, dir, "test", "rules", filepath.Base(alertTestsFile))
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range readRuleFile(t, alertTestsFile).Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	n := 0
	for _, g := range readRuleFile(t, alertsFile).Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			n++
			if !fires[r.Alert] || !quiet[r.Alert] {
				t.Errorf("alert %s: tested firing %v, tested quiet %v; want both", r.Alert, fires[r.Alert], quiet[r.Alert])
			}
		}
	}
	if n < 4 {
		t.Errorf("%d alerts in %s; want at least the relocation lag, session, failing jobs and throttle ones", n, alertsFile)
	}
}

// grafanaQueries are the PromQL expressions of the dashboard's panels, by panel title.
func grafanaQueries(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(grafanaFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", grafanaFile, err)
	}
	out := map[string][]string{}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out[p.Title] = append(out[p.Title], tg.Expr)
		}
	}
	return out
}

// TestGrafanaQueries: every query of the dashboard is valid PromQL (promtool checks it as a
// recording rule, Grafana's variables replaced by values).
func TestGrafanaQueries(t *testing.T) {
	vars := strings.NewReplacer("$__rate_interval", "5m", "$job", ".*")
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: grafana\n    rules:\n")
	n := 0
	for title, exprs := range grafanaQueries(t) {
		for _, e := range exprs {
			n++
			q, _ := json.Marshal(vars.Replace(e)) // a JSON string is a YAML one
			fmt.Fprintf(&rules, "      - record: panel_%d # %s\n        expr: %s\n", n, strings.ReplaceAll(title, "\n", " "), q)
		}
	}
	if n == 0 {
		t.Fatalf("no queries in %s", grafanaFile)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "grafana.rules.yaml"), []byte(rules.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	runPromtool(t, dir, "check", "rules", "grafana.rules.yaml")
}

// exportedNames are the names of every series a server exports, which hold those of a
// worker and of a master (the same metrics package registers them), each with its type:
// the server's metrics on a registry of the test's, each kind of series made to appear.
func exportedNames(t *testing.T) map[string]dto.MetricType {
	t.Helper()
	cat, _ := catalogWithRelocation(t)
	s := &Server{cat: cat, cfg: Config{Version: "test", Logger: slog.New(slog.DiscardHandler)}, isLead: true}
	reg := prometheus.NewPedanticRegistry()
	m, err := newServerMetrics(reg, s, func() bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	s.metrics = m
	job := metrics.Job{ID: "j1"}
	m.master.SetLeading(true)
	m.master.SetTasks(job, metrics.TaskCounts{Pending: 1})
	m.master.SetThrottle(job, 1e6, 0.01)
	m.worker.Track(job, func() metrics.JobCounts { return metrics.JobCounts{BytesRead: 1} })
	m.worker.SetBandwidth(job.ID, 1e6, 1e5)
	m.worker.FileLoaded(job.ID, time.Second)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/x", func(http.ResponseWriter, *http.Request) {})
	m.instrument(mux).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/x", nil))
	m.instrumentDashboard(mux).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/x", nil))
	m.catalogErrors.Add(0)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]dto.MetricType{}
	for _, mf := range mfs {
		names[mf.GetName()] = mf.GetType()
	}
	return names
}

// metricName matches the name of one of rangecopy's series in PromQL or a series selector.
var metricName = regexp.MustCompile(`\brangecopy_[a-z0-9_]+\b`)

// TestDeployedMetricNames: every metric name the alerting rules, their tests and the Grafana
// dashboard use is one the code exports (a histogram's by its _bucket, _sum and _count), so a
// rename in the code cannot leave a dashboard or an alert looking at nothing.
func TestDeployedMetricNames(t *testing.T) {
	names := exportedNames(t)
	exists := func(n string) bool {
		if _, ok := names[n]; ok {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(n, suffix); ok && names[base] == dto.MetricType_HISTOGRAM {
				return true
			}
		}
		return false
	}
	used := map[string][]string{} // name → where
	note := func(where, text string) {
		for _, n := range metricName.FindAllString(text, -1) {
			if !slices.Contains(used[n], where) {
				used[n] = append(used[n], where)
			}
		}
	}
	for _, g := range readRuleFile(t, alertsFile).Groups {
		for _, r := range g.Rules {
			note(alertsFile+" "+r.Alert, r.Expr)
		}
	}
	for _, tc := range readRuleFile(t, alertTestsFile).Tests {
		for _, in := range tc.InputSeries {
			note(alertTestsFile, in.Series)
		}
	}
	for title, exprs := range grafanaQueries(t) {
		for _, e := range exprs {
			note(grafanaFile+" "+title, e)
		}
	}
	if len(used) < 10 {
		t.Fatalf("only %d metric names found in the deploy files", len(used))
	}
	for n, where := range used {
		if !exists(n) {
			t.Errorf("%s, used in %s, is not a metric rangecopy exports", n, strings.Join(where, "; "))
		}
	}
	t.Logf("%d metric names used in the deploy files, all exported (of %d)", len(used), len(names))
}

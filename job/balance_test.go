package job

import (
	"container/heap"
	"fmt"
	"math/rand"
	"testing"
)

// skewed is a table of small regions of size small each and one region ten
// times larger, as files with an index entry every MiB.
func skewed(smallRegions int, small int64) ([]Region, []StoreFile) {
	var bounds []string
	for i := 1; i <= smallRegions; i++ {
		bounds = append(bounds, fmt.Sprintf("%c", 'a'+i))
	}
	regions := regionsAt(bounds...)
	var files []StoreFile
	for i, r := range regions {
		size := small
		if i == 0 {
			size = 10 * small
		}
		blocks := int(size >> 20)
		f := StoreFile{Region: r.EncodedName, Family: "f", Name: fmt.Sprintf("hf%d", i), Size: size}
		prefix := string(rune('a' + i))
		for b := 0; b < blocks; b++ {
			f.Index = append(f.Index, IndexEntry{Row: []byte(fmt.Sprintf("%s%06d", prefix, b)), Offset: int64(b) << 20})
		}
		f.FirstRow = f.Index[0].Row
		f.LastRow = []byte(fmt.Sprintf("%s%06d~", prefix, blocks-1))
		files = append(files, f)
	}
	return regions, files
}

// slotHeap orders slots by the time they come free.
type slotHeap []float64

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h slotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *slotHeap) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }

// makespanRatio runs the tasks in the given order on slots workers, each
// taking the next task when it comes free (how workers claim), with time
// proportional to bytes, and returns the finish time over the ideal (all
// bytes over slots).
func makespanRatio(tasks []Task, order []int, slots int) float64 {
	h := make(slotHeap, slots)
	var total float64
	for _, i := range order {
		t := float64(tasks[i].Bytes)
		total += t
		free := heap.Pop(&h).(float64)
		heap.Push(&h, free+t)
	}
	var end float64
	for _, f := range h {
		end = max(end, f)
	}
	return end / (total / float64(slots))
}

// TestPlanBalancesSkewedTables plans tables where one region is ten times
// larger than each of the others, and runs the plan's tasks on four workers
// in many random claim orders: with the task size chosen for four slots the
// workers finish within 1.3 times the ideal time in every order.
func TestPlanBalancesSkewedTables(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for _, tc := range []struct {
		name   string
		small  int
		region int64
	}{
		{"10 regions of 100 MiB and one of 1 GiB", 10, 100 << 20},
		{"6 regions of 200 MiB and one of 2 GiB", 6, 200 << 20},
		{"20 regions of 1 GiB and one of 10 GiB", 20, 1 << 30},
		{"3 regions of 64 MiB and one of 640 MiB", 3, 64 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			regions, files := skewed(tc.small, tc.region)
			auto, err := Make(Spec{Table: "t"}, regions, files, PlanOptions{Slots: 4})
			if err != nil {
				t.Fatal(err)
			}
			fixed, err := Make(Spec{Table: "t"}, regions, files, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkTiles(t, auto, KeyRange{})
			worst, worstFixed, sum := 0.0, 0.0, 0.0
			const trials = 500
			for i := 0; i < trials; i++ {
				r := makespanRatio(auto.Tasks, rnd.Perm(len(auto.Tasks)), 4)
				worst = max(worst, r)
				sum += r
				worstFixed = max(worstFixed, makespanRatio(fixed.Tasks, rnd.Perm(len(fixed.Tasks)), 4))
			}
			t.Logf("%d tasks of about %d MiB: worst %.3f, mean %.3f of the ideal time (fixed 512 MiB tasks: %d tasks, worst %.3f)",
				len(auto.Tasks), AutoTaskBytes(auto.Bytes, 4)>>20, worst, sum/trials, len(fixed.Tasks), worstFixed)
			if worst > 1.3 {
				t.Errorf("worst claim order finishes at %.3f of the ideal time, want at most 1.3", worst)
			}
		})
	}
}

func TestAutoTaskBytes(t *testing.T) {
	for _, tc := range []struct {
		total int64
		slots int
		want  int64
	}{
		{0, 4, MinAutoTaskBytes},
		{1 << 30, 4, MinAutoTaskBytes},
		{4 << 30, 4, 256 << 20},
		{1 << 40, 4, DefaultTaskBytes},
		{8 << 30, 1, DefaultTaskBytes},
		{8 << 30, 0, DefaultTaskBytes},
	} {
		if got := AutoTaskBytes(tc.total, tc.slots); got != tc.want {
			t.Errorf("AutoTaskBytes(%d, %d) = %d, want %d", tc.total, tc.slots, got, tc.want)
		}
	}
}

func TestFastPathCandidateAndCost(t *testing.T) {
	times := TimeRange{Min: 10, Max: 100}
	file := func(name, first, last string, min, max int64) StoreFile {
		return StoreFile{Family: "f", Name: name, Size: 1000, FirstRow: []byte(first), LastRow: []byte(last), HasTime: true, MinTime: min, MaxTime: max}
	}
	alone := file("a", "b", "c", 20, 30)
	overlapped := file("b", "c", "d", 20, 30)
	apart := file("c", "x", "y", 20, 30)
	old := file("d", "m", "n", 5, 30)
	other := StoreFile{Family: "g", Name: "e", Size: 1000, FirstRow: []byte("b"), LastRow: []byte("c"), HasTime: true, MinTime: 20, MaxTime: 30}
	outside := file("f", "b", "zz", 20, 30)
	task := Task{ID: "t", Rows: kr("a", "z"), Files: []StoreFile{alone, apart, old, other}, Bytes: 4000}
	for _, tc := range []struct {
		f    StoreFile
		want bool
	}{{alone, true}, {apart, true}, {old, false}, {other, true}} {
		if got := task.FastPathCandidate(tc.f, times); got != tc.want {
			t.Errorf("%s/%s: candidate %v, want %v", tc.f.Family, tc.f.Name, got, tc.want)
		}
	}
	task2 := Task{ID: "t2", Rows: kr("a", "z"), Files: []StoreFile{alone, overlapped, outside}, Bytes: 3000}
	for _, f := range task2.Files {
		if task2.FastPathCandidate(f, times) {
			t.Errorf("%s: overlapping or outside the task, yet a candidate", f.Name)
		}
	}
	// Three candidates of 1000 bytes count a quarter: 4000 - 3*750.
	if c := task.Cost(times); c != 1750 {
		t.Errorf("cost %d, want 1750", c)
	}
	if c := task2.Cost(times); c != 3000 {
		t.Errorf("cost of a task with no candidate %d, want its bytes", c)
	}
	p := Plan{Tasks: []Task{{ID: "small", Bytes: 10}, task, task2, {ID: "mid", Bytes: 1750}}}
	if got := fmt.Sprint(p.CostOrder(times, 0)); got != "[t2 t mid small]" {
		t.Errorf("cost order %s", got)
	}
	if got := fmt.Sprint(p.CostOrder(times, 2)); got != "[t2 t]" {
		t.Errorf("cost order limited to 2: %s", got)
	}
}

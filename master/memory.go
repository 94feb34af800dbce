package master

import "rangecopy/bulkload"

// OutputBlockSizes are the block sizes of the files a task writes, one per family copied, as
// the target's writers will use them (bulkload.SettingsFor); a family whose settings cannot
// be read counts with the default. They size a task's least memory (memory.Need).
func (p *Planner) OutputBlockSizes() []int {
	var out []int
	if p.srcDesc == nil {
		return out
	}
	for _, fd := range p.srcDesc.Families {
		s, err := bulkload.SettingsFor(fd, p.o.Target.ZstdCodec)
		if err != nil {
			out = append(out, 0)
			continue
		}
		out = append(out, s.BlockSize)
	}
	return out
}

package memory

// Need is the least a task of inputs input files whose blocks are about block bytes (0:
// DefaultBlock) needs, writing blocks of outBlock bytes (0: DefaultBlock): the share below
// which PlanTask refuses it. It is pure.
func Need(inputs, block, outBlock int) int64 {
	if block <= 0 {
		block = DefaultBlock
	}
	if outBlock <= 0 {
		outBlock = DefaultBlock
	}
	minIn := int64(BlockBuffers*block) + ReadAheadChunks*MinReadAhead + Batches*MinBatch
	return int64(WriterBytes+WriterBlocks*outBlock) + int64(max(inputs, 0))*minIn
}

// FitSlots is how many tasks, at most want, can run at once in a budget of limit bytes (0 or
// less: Default) with each one's share (limit over the tasks at once) holding a task of inputs
// input files for every output block size in outBlocks (one per family; none: DefaultBlock).
// It is 0 when not even one task fits the whole budget. It is pure.
func FitSlots(limit int64, want, inputs int, outBlocks []int) int {
	if limit <= 0 {
		limit = Default
	}
	if len(outBlocks) == 0 {
		outBlocks = []int{DefaultBlock}
	}
	var need int64
	for _, b := range outBlocks {
		need = max(need, Need(inputs, 0, b))
	}
	for n := max(want, 1); n >= 1; n-- {
		if limit/int64(n) >= need {
			return n
		}
	}
	return 0
}

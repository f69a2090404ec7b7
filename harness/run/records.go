package run

// recordBatch is how many records a unit appends at once: one write and
// one fsync per batch, and no more than a batch encoded in memory.
const recordBatch = 1 << 13

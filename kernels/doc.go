// Package kernels holds the vectorised maths of the audit: similarity joins,
// k-nearest neighbours, clustering, Vendi scores and online logistic
// regression over float32 embedding matrices (row major, one item per row,
// usually unit rows so that dot products are cosines).
//
// # How data moves
//
// Embeddings arrive as a Matrix (kernels/npy reads and writes them as .npy).
// Products run through BLAS (kernels/blas: OpenBLAS and LAPACKE through cgo,
// gonum's pure Go without cgo) one tile at a time, so memory stays bounded
// whatever the number of rows:
//
//   - ThresholdJoin streams every pair at or above a cosine threshold
//     (near-duplicates), TopK and TopKEarlier find nearest neighbours (the
//     copy and retrieval attackers), LeaderClusters and UnionFind group
//     items.
//   - VendiJoint, VendiFeatures and VendiKernel compute exact Vendi scores;
//     NewJointKernel and VendiEstimate estimate them past what fits in memory,
//     multiplying by the kernel through the features or through tiles of
//     it, whichever costs fewer flops.
//   - PrequentialLogistic, PrequentialLogisticOrders and PrequentialChoice
//     are the online learners of the pool level; BootstrapMean and
//     PercentileRanks serve the metrics.
//
// # Exactness and determinism
//
// Float32 tiles only shortlist: a threshold is lowered by the worst-case
// rounding error of a float32 dot product and every candidate is decided by
// a float64 dot product in a fixed order, so joins and neighbour lists equal
// a float64 brute force and do not depend on BLAS or on the thread count.
// Every parallel kernel partitions its work by fixed tiles, writes each
// result from exactly one goroutine and reduces in a fixed order; random
// draws use math/rand/v2 PCG streams keyed by the seed and the work item,
// never by the worker. Options.Threads bounds the goroutines; OpenBLAS
// itself is set to one thread per call (kernels/blas), so eigensolvers run
// on one core.
//
// # Backends
//
// Each operation a GPU can speed up has an interface (Joiner,
// NeighbourSearcher, SymOperator). CPU implements them on the host and is
// the reference every other backend is tested against; the package-level
// functions use it.
package kernels

/* A stand-in for the CUDA toolkit's stub libcuda.so: every call answers
 * CUDA_ERROR_STUB_LIBRARY (34) and writes nothing through its pointers,
 * cuGetErrorName's included. */
int cuInit(unsigned int flags) { return 34; }
int cuGetErrorName(int r, const char **s) { return 34; }

/* A stand-in for libcuda.so.1 with one GPU, for testing the CUDA driver API
 * bindings on a machine without a driver. */
#include <string.h>

static int inited;
int cuInit(unsigned int flags) { if (flags) return 1; inited = 1; return 0; }
int cuGetErrorName(int r, const char **s) { *s = r == 3 ? "CUDA_ERROR_NOT_INITIALIZED" : "CUDA_ERROR_INVALID_VALUE"; return 0; }
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuDeviceGetCount(int *c) { if (!inited) return 3; *c = 1; return 0; }
int cuDeviceGet(int *d, int i) { if (i != 0) return 101; *d = 0; return 0; }
int cuDeviceGetName(char *s, int n, int d) { strncpy(s, "Fake L4", n); return 0; }
int cuDeviceTotalMem_v2(unsigned long *m, int d) { *m = 24ULL << 30; return 0; }
int cuDeviceGetUuid(unsigned char *u, int d) { for (int i = 0; i < 16; i++) u[i] = i * 17; return 0; }

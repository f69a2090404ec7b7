/* A stand-in for libnvidia-ml.so.1 with two GPUs, for testing the NVML
 * bindings on a machine without a driver. Values are arbitrary but distinct. */
#include <string.h>

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef void *nvmlDevice_t;
static int inited;
static int devs[2];
static const char *names[2] = {"Fake H200", "Fake H100"};
static const char *uuids[2] = {"GPU-11111111-2222-3333-4444-555555555555",
                               "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"};

int nvmlInit_v2(void) { inited = 1; return 0; }
int nvmlShutdown(void) { inited = 0; return 0; }
const char *nvmlErrorString(int r) { return r == 1 ? "Uninitialized" : "Invalid Argument"; }
int nvmlSystemGetDriverVersion(char *v, unsigned int n) {
  if (!inited) return 1;
  strncpy(v, "570.124.06", n);
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned int *c) { if (!inited) return 1; *c = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
  if (i >= 2) return 2;
  *d = &devs[i];
  return 0;
}
static int which(nvmlDevice_t d) { return (int *)d - devs; }
int nvmlDeviceGetName(nvmlDevice_t d, char *s, unsigned int n) { strncpy(s, names[which(d)], n); return 0; }
int nvmlDeviceGetUUID(nvmlDevice_t d, char *s, unsigned int n) { strncpy(s, uuids[which(d)], n); return 0; }
int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
  int i = which(d);
  m->total = (i + 1) * 1000000000ULL + 7;
  m->free = (i + 1) * 600000000ULL + 3;
  m->used = m->total - m->free;
  return 0;
}

/* Measures the core clock under load: a chain of dependent integer adds
 * retires one add per cycle on every x86 core since the P6, so adds per
 * second of this thread's own CPU time is the clock, even on a busy
 * machine. Used by bench/kernels.sh for the fp32 peak.
 * cc -O2 -o clock kernels_clock.c */
#include <stdio.h>
#include <time.h>

int main(void) {
	const long iters = 400000000L;
	struct timespec a, b;
	unsigned long x = 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < iters; i++) {
		__asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
		                 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
		                 : "+r"(x));
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	double sec = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%.3f\n", 8.0 * iters / sec / 1e9); /* GHz */
	return x == 0;
}

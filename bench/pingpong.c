/* Core-to-core round trip for bench/threads.sh: two threads, one on CPU A and one on CPU B (default
 * 0 and 1), hand a cache line back and forth ROUNDS times (default 200,000); prints the mean round
 * trip in nanoseconds. On a VM the host may run the two vCPUs on cores that share a cache or on
 * cores far apart, and may move them while it runs: what a pipeline pays for every line one thread
 * writes and the other reads follows this number (bench/README.md, fourteenth round).
 *   cc -O2 -pthread bench/pingpong.c -o bench/out/pingpong
 *   bench/out/pingpong [A B [ROUNDS]] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(128) _Atomic long line;
static long rounds = 200000;

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (pthread_setaffinity_np(pthread_self(), sizeof s, &s) != 0) fprintf(stderr, "pingpong: cannot pin to CPU %d\n", cpu);
}

static void *answer(void *arg)
{
    pin(*(const int *)arg);
    for (long i = 0; i < rounds; i++) {
        while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 1) continue;
        atomic_store_explicit(&line, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int a = 0, b = 1;
    if (argc != 1 && argc != 3 && argc != 4) {
        fprintf(stderr, "usage: pingpong [CPU_A CPU_B [ROUNDS]]\n");
        return 2;
    }
    if (argc >= 3) a = atoi(argv[1]), b = atoi(argv[2]);
    if (argc == 4) rounds = atol(argv[3]);
    if (rounds <= 0) return 2;
    pthread_t t;
    if (pthread_create(&t, NULL, answer, &b) != 0) return 2;
    pin(a);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < rounds; i++) {
        atomic_store_explicit(&line, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&line, memory_order_acquire) != 2 * i + 2) continue;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_join(t, NULL);
    printf("%.0f\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)rounds);
    return 0;
}

// SPDX-License-Identifier: MIT
/*
 * threads [MILLIONS]: the main thread and three more, named worker-1 to
 * worker-3 (pthread_setname_np, as a thread pool names its threads), each
 * spinning on a chain of multiplies: worker-K for K * MILLIONS / 2 million
 * iterations, the main thread for MILLIONS / 4 million (default 100), so
 * that a profile's rows per thread come in a known order.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long millions = 100;

static void spin(unsigned long n)
{
	unsigned long x = 3;

	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("imul %0, %0" : "+r"(x));
}

static void *worker(void *arg)
{
	unsigned long k = (unsigned long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%lu", k);
	pthread_setname_np(pthread_self(), name);
	spin(k * millions * 500000UL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	if (argc > 1)
		millions = strtoul(argv[1], NULL, 0);
	for (unsigned long k = 0; k < 3; k++)
		if (pthread_create(&t[k], NULL, worker, (void *)(k + 1)))
			return 1;
	spin(millions * 250000UL);
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	return 0;
}

/*
 * sharer: a test process family with known memory, for pagecost's tests.
 *
 *   sharer SHARED_MB COW_MB PRIVATE_MB CHILDREN THP_MB [REPLACE_MB]
 *
 * The parent maps SHARED_MB of MAP_SHARED|MAP_ANONYMOUS memory (shmem, like
 * PostgreSQL's /dev/zero segment), COW_MB of private anonymous memory and
 * THP_MB of private memory advised MADV_HUGEPAGE, writes all of them, reads
 * one MiB of untouched private memory (the zero page), then forks CHILDREN.
 * Each child reads the whole shared segment (mapping every page), writes the
 * first half of the COW region (those pages become its own; the second half
 * stays shared with the parent and the siblings), writes the first 4 KiB of
 * every 2 MiB of the THP region, and writes PRIVATE_MB of new private memory.
 * With REPLACE_MB, the last child then replaces the first REPLACE_MB of its
 * shared segment with private anonymous memory at the same address and
 * writes it: its layout differs from its siblings' where they skip.
 * The parent then prints "ready PID..." with the children's PIDs and waits
 * for its standard input to close; the children die with it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB (1024UL * 1024UL)
#define HUGE (2 * MB)

static char *map(size_t len, int flags) {
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static char *map_thp(size_t len) {
	char *raw = map(len + HUGE, MAP_PRIVATE | MAP_ANONYMOUS);
	char *p = (char *)(((unsigned long)raw + HUGE - 1) & ~(HUGE - 1));
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

static void child(char *shared, size_t shared_len, char *cow, size_t cow_len,
		  char *thp, size_t thp_len, size_t priv_len, size_t replace_len, int ready) {
	volatile unsigned long sum = 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (size_t i = 0; i < shared_len; i += 4096)
		sum += shared[i];
	if (replace_len) {
		char *p = mmap(shared, replace_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap MAP_FIXED");
			exit(1);
		}
		memset(p, 7, replace_len);
	}
	memset(cow, 3, cow_len / 2);
	for (size_t i = 0; i < thp_len; i += HUGE)
		thp[i] = 4;
	if (priv_len)
		memset(map(priv_len, MAP_PRIVATE | MAP_ANONYMOUS), 5, priv_len);
	if (write(ready, "x", 1) != 1)
		exit(1);
	for (;;)
		pause();
}

int main(int argc, char **argv) {
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: sharer SHARED_MB COW_MB PRIVATE_MB CHILDREN THP_MB [REPLACE_MB]\n");
		return 2;
	}
	size_t replace_len = argc == 7 ? atol(argv[6]) * MB : 0;
	size_t shared_len = atol(argv[1]) * MB, cow_len = atol(argv[2]) * MB;
	size_t priv_len = atol(argv[3]) * MB, thp_len = atol(argv[5]) * MB;
	int n = atoi(argv[4]), fds[2];
	char *shared = map(shared_len, MAP_SHARED | MAP_ANONYMOUS);
	char *cow = map(cow_len, MAP_PRIVATE | MAP_ANONYMOUS);
	char *thp = thp_len ? map_thp(thp_len) : NULL;
	char *zero = map(MB, MAP_PRIVATE | MAP_ANONYMOUS);
	volatile unsigned long sum = 0;
	memset(shared, 1, shared_len);
	memset(cow, 2, cow_len);
	if (thp_len)
		memset(thp, 6, thp_len);
	for (size_t i = 0; i < MB; i += 4096)
		sum += zero[i];
	if (pipe(fds) != 0)
		return 1;
	pid_t *pids = calloc(n, sizeof(pid_t));
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			child(shared, shared_len, cow, cow_len, thp, thp_len, priv_len,
			      i == n - 1 ? replace_len : 0, fds[1]);
	}
	char c;
	for (int i = 0; i < n; i++)
		if (read(fds[0], &c, 1) != 1)
			return 1;
	printf("ready");
	for (int i = 0; i < n; i++)
		printf(" %d", pids[i]);
	printf("\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}

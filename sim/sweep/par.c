/* par.c - a sweep spread over MPI ranks (sweep.h, "parallel sweeps").
 *
 * Built with MPI (meson -Dmpi=enabled, or auto when OpenMPI's `mpi`
 * dependency is found: PODSIM_MPI is defined), a process started by mpirun
 * joins MPI_COMM_WORLD; every other process, and every build without MPI, is
 * rank 0 of 1 and never calls MPI. Work is dealt round-robin (plan i of the
 * screen to rank i % size, simulated plan j to rank j % size) because
 * neighbouring plans cost alike, so each rank gets its share of the slow
 * ones. Results travel as raw bytes (sweep_plan, exec_result are flat
 * structs and every rank runs the same binary). */
#include "sweep_int.h"

#include <stdlib.h>
#include <string.h>

#ifdef PODSIM_MPI
#include <mpi.h>

bool sweep_par_built(void)
{
	return true;
}

/* Started by a launcher: OpenMPI's mpirun, or a PMI/PMIx one (srun). */
static bool launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

int sweep_par_init(sweep_par *p)
{
	p->rank = 0;
	p->size = 1;
	p->mpi = false;
	if (!launched())
		return SIM_OK;
	int done = 0;
	MPI_Initialized(&done);
	if (!done && MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return SIM_EINVAL;
	p->mpi = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p->size);
	return SIM_OK;
}

void sweep_par_end(sweep_par *p)
{
	if (p->mpi)
		MPI_Finalize();
	p->mpi = false;
}

/* Every rank's own plans (i % size == rank, in order), gathered on all. */
static int gather_plans(const sweep_par *p, sweep_screen_result *r)
{
	uint64_t n = r->nplans, size = (uint64_t)p->size, mine = 0;
	int *count = malloc((size_t)size * sizeof *count),
	    *displ = malloc((size_t)size * sizeof *displ);
	sweep_plan *send = malloc((n / size + 1) * sizeof *send);
	sweep_plan *all = malloc((n ? n : 1) * sizeof *all);
	int rc = count && displ && send && all ? SIM_OK : SIM_ENOMEM;
	for (uint64_t i = (uint64_t)p->rank; rc == SIM_OK && i < n; i += size)
		send[mine++] = r->plans[i];
	uint64_t at = 0;
	for (uint64_t k = 0; rc == SIM_OK && k < size; k++) { /* bytes; n < 2^31 / sizeof */
		uint64_t nk = n / size + (k < n % size);
		count[k] = (int)(nk * sizeof *all);
		displ[k] = (int)(at * sizeof *all);
		at += nk;
	}
	if (rc == SIM_OK && n * sizeof *all > (uint64_t)INT32_MAX)
		rc = SIM_ENOMEM; /* MPI counts are int */
	if (rc == SIM_OK)
		MPI_Allgatherv(send, (int)(mine * sizeof *send), MPI_BYTE, all, count, displ,
		               MPI_BYTE, MPI_COMM_WORLD);
	/* Rank k's q-th plan is plan k + q * size. */
	for (uint64_t k = 0, j = 0; rc == SIM_OK && k < size; k++)
		for (uint64_t i = k; i < n; i += size)
			r->plans[i] = all[j++];
	free(count);
	free(displ);
	free(send);
	free(all);
	return rc;
}

int sweep_screen_par(const sweep_par *p, const sweep_space *sp, const plan_scenario *base,
                     const char *path, const char *const *sets, size_t nsets,
                     sweep_screen_result *out)
{
	if (!p->mpi || p->size == 1)
		return sweep_screen(sp, base, path, sets, nsets, out);
	int rc = sweep_screen_part(sp, base, path, sets, nsets, (uint64_t)p->rank,
	                           (uint64_t)p->size, out);
	int bad = rc != SIM_OK, any_bad = 0;
	MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any_bad)
		return rc != SIM_OK ? rc : SIM_ENOMEM;
	size_t tsize = SWEEP_MAX_REASONS * SWEEP_REASON_MAX;
	char(*tables)[SWEEP_REASON_MAX] = malloc((size_t)p->size * tsize);
	char(*examples)[SWEEP_REASON_MAX] = malloc((size_t)p->size * tsize);
	if (!tables || !examples || gather_plans(p, out) != SIM_OK) {
		free(tables);
		free(examples);
		return SIM_ENOMEM;
	}
	MPI_Allgather(out->reasons, (int)tsize, MPI_CHAR, tables, (int)tsize, MPI_CHAR,
	              MPI_COMM_WORLD);
	MPI_Allgather(out->examples, (int)tsize, MPI_CHAR, examples, (int)tsize, MPI_CHAR,
	              MPI_COMM_WORLD);
	sweep_screen_recount(out, (const char(*)[SWEEP_REASON_MAX])tables,
	                     (const char(*)[SWEEP_REASON_MAX])examples, (uint64_t)p->size);
	free(tables);
	free(examples);
	double wall = out->wall_s;
	MPI_Allreduce(&wall, &out->wall_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return SIM_OK;
}

int sweep_par_send(const sweep_par *p, const exec_result *r, int ok, int tag)
{
	(void)p;
	MPI_Send(&ok, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
	if (ok)
		MPI_Send(r, (int)sizeof *r, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
	return SIM_OK;
}

int sweep_par_recv(const sweep_par *p, int from, int tag, exec_result *r, int *ok)
{
	(void)p;
	MPI_Recv(ok, 1, MPI_INT, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (*ok)
		MPI_Recv(r, (int)sizeof *r, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return SIM_OK;
}

int sweep_par_max(const sweep_par *p, int x)
{
	int m = x;
	if (p->mpi)
		MPI_Allreduce(&x, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return m;
}

double sweep_par_min(const sweep_par *p, double x)
{
	double m = x;
	if (p->mpi)
		MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
	return m;
}

#else /* no MPI: one process */

bool sweep_par_built(void)
{
	return false;
}

int sweep_par_init(sweep_par *p)
{
	p->rank = 0;
	p->size = 1;
	p->mpi = false;
	return SIM_OK;
}

void sweep_par_end(sweep_par *p)
{
	(void)p;
}

int sweep_screen_par(const sweep_par *p, const sweep_space *sp, const plan_scenario *base,
                     const char *path, const char *const *sets, size_t nsets,
                     sweep_screen_result *out)
{
	(void)p;
	return sweep_screen(sp, base, path, sets, nsets, out);
}

int sweep_par_send(const sweep_par *p, const exec_result *r, int ok, int tag)
{
	(void)p, (void)r, (void)ok, (void)tag;
	SIM_PANIC("sweep_par_send without MPI");
}

int sweep_par_recv(const sweep_par *p, int from, int tag, exec_result *r, int *ok)
{
	(void)p, (void)from, (void)tag, (void)r, (void)ok;
	SIM_PANIC("sweep_par_recv without MPI");
}

int sweep_par_max(const sweep_par *p, int x)
{
	(void)p;
	return x;
}

double sweep_par_min(const sweep_par *p, double x)
{
	(void)p;
	return x;
}

#endif

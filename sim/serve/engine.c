/* engine.c - the serving loop: requests arrive (Poisson, closed loop,
 * offline, trace), a router sends each to a replica, and every replica runs
 * iteration after iteration on core's event engine, each iteration's batch
 * chosen by its scheduler and timed by cost.c.
 *
 * Schedulers (serve.h serve_batching), per iteration:
 *  - static: an idle replica admits up to max_batch waiting requests whose
 *    whole KV (prompt + the longest output the stream can ask for: the
 *    engine cannot know a request's length) fits the free blocks, prefills them in one
 *    iteration and then decodes every slot of the batch, finished ones as
 *    padding, until the last request ends (TensorRT-LLM's
 *    gptSessionBenchmark, FasterTransformer).
 *  - continuous: every iteration takes all running requests' decodes, then
 *    admits waiting requests in arrival order (FIFO: the first that does not
 *    fit stops admission) with their whole prompt while max_batch,
 *    max_tokens (decodes + prompt tokens; one prompt always runs when it is
 *    the iteration's only work; the loader requires max_tokens >= the
 *    longest prompt) and the free KV blocks allow: Orca's
 *    iteration-level scheduling, TensorRT-LLM's in-flight batching.
 *  - chunked: as continuous, but prompts are cut into chunks that fill the
 *    token budget left after the decodes (max_tokens), a partly prefilled
 *    request continuing first (Sarathi-Serve, vLLM's chunked prefill).
 * Paged KV cache: a request holds ceil(KV tokens / block_tokens) blocks,
 * allocated as its context grows; when a decode needs a block and none is
 * free, the most recently admitted running request is preempted by
 * recompute (vLLM's default): its blocks are freed and it returns to the
 * head of the queue with its prompt and the tokens generated so far to be
 * prefilled again; or, with preemption = swap, its blocks are copied to host
 * memory and back when it is admitted again, each copy at the node's PCIe
 * bandwidth x pcie_efficiency before the next iteration. Host memory for
 * swapped KV is swap_space per GPU (vLLM's swap_space, 4 GiB by default):
 * a request whose blocks do not fit in what is left of it is preempted by
 * recompute instead (with swap_space = 0 the run is the recompute run).
 * A request's first token comes out of the iteration that completes its
 * prefill; each later one out of a decode. TTFT = first - arrival, TPOT =
 * (done - first) / (output - 1), end-to-end = done - arrival.
 */
#include "serve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct req {
	int in, out, gen, ctx, target, blocks;
	int host_blocks; /* blocks of its KV in host memory (swapped) */
	bool swapped; /* its KV waits in host memory */
	sim_time arrive, first, done;
} req;

typedef struct replica {
	int *run, nrun; /* running requests, in admission order */
	int *chunk;     /* per running slot: prefill tokens this iteration, 0 decode, -1 idle */
	int *wait, whead, wn, wcap; /* waiting queue (ring) */
	int64_t free_blocks, total_blocks;
	bool busy, batch_on; /* an iteration in flight; a static batch in progress */
	bool kicked;         /* an idle replica's start is scheduled */
	sim_time iter_start;
	double kv_area, run_area, wait_area; /* integrals over time (s) */
	double swap_bytes; /* KV bytes per GPU to move over PCIe before the next iteration */
	int64_t host_blocks; /* blocks per GPU held in host swap space */
	int64_t kv_peak;
} replica;

typedef struct sim {
	const serve_scenario *s;
	serve_cost *cost;
	sim_engine *eng;
	sim_rng *rng;
	req *reqs;
	int nreq, issued, completed, rr;
	replica *rep;
	int B; /* tokens per block */
	int max_out; /* the longest output the stream can ask for (static batching
		      * reserves it: the engine cannot know a request's length) */
	int64_t preemptions, iterations, prompt_tokens, output_tokens;
	bool oom;
	bool past_clock; /* an arrival or an iteration past SIM_TIME_HORIZON */
	serve_progress_fn progress; /* NULL: none */
	void *progress_ctx;
	FILE *trace; /* Chrome trace events, or NULL */
	double block_bytes; /* one KV block on one GPU */
	double swapped;     /* bytes per GPU swapped, both ways */
} sim;

int serve_draw_len(sim_rng *r, serve_len_dist dist, int mean)
{
	if (dist == SERVE_LEN_UNIFORM) {
		int lo = mean - mean / 2, hi = mean + mean / 2;
		int v = lo + (int)floor(sim_rng_uniform(r) * (hi - lo + 1));
		return v > hi ? hi : v < 1 ? 1 : v;
	}
	if (dist == SERVE_LEN_EXPONENTIAL) {
		double x = ceil(-log(1.0 - sim_rng_uniform(r)) * mean);
		return x < 1 ? 1 : x > 4.0 * mean ? 4 * mean : (int)x;
	}
	return mean;
}

/* A gamma variate of shape k and mean k (scale 1): Marsaglia and Tsang
 * (2000), "A simple method for generating gamma variables", for k >= 1;
 * for k < 1, Gamma(k) = Gamma(k + 1) U^(1/k). Gaps of a gamma stream with
 * coefficient of variation cv have shape 1/cv^2 and mean 1/rate. */
double serve_gamma_draw(sim_rng *r, double k)
{
	if (k < 1)
		return serve_gamma_draw(r, k + 1) * pow(1.0 - sim_rng_uniform(r), 1.0 / k);
	double d = k - 1.0 / 3, c = 1.0 / sqrt(9 * d);
	for (;;) {
		double x = sim_rng_normal(r, 1.0), v = 1 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		double u = 1.0 - sim_rng_uniform(r);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

static int64_t blocks_for(const sim *m, int tokens)
{
	return ((int64_t)tokens + m->B - 1) / m->B;
}

static void push_wait(replica *r, int id, bool front)
{
	if (front) {
		r->whead = (r->whead + r->wcap - 1) % r->wcap;
		r->wait[r->whead] = id;
	} else {
		r->wait[(r->whead + r->wn) % r->wcap] = id;
	}
	r->wn++;
}

static int pop_wait(replica *r)
{
	int id = r->wait[r->whead];
	r->whead = (r->whead + 1) % r->wcap;
	r->wn--;
	return id;
}

static void start_iteration(sim *m, int ri);

/* An idle replica starts after every arrival of this instant is queued
 * (priority 2 runs after arrivals and iteration ends at equal times), so an
 * offline batch is admitted whole. */
static void on_kick(sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)eng;
	sim *m = ctx;
	m->rep[arg].kicked = false;
	if (!m->rep[arg].busy)
		start_iteration(m, (int)arg);
}

static void route(sim *m, int id)
{
	int n = m->s->replicas, best = 0;
	if (m->s->route == SERVE_ROUTE_RR) {
		best = m->rr;
		m->rr = (m->rr + 1) % n;
	} else {
		for (int i = 1; i < n; i++)
			if (m->rep[i].nrun + m->rep[i].wn < m->rep[best].nrun + m->rep[best].wn)
				best = i;
	}
	replica *r = &m->rep[best];
	push_wait(r, id, false);
	if (!r->busy && !r->kicked) {
		r->kicked = true;
		if (!sim_engine_schedule(m->eng, sim_engine_now(m->eng), 2, on_kick, m, (uint64_t)best))
			m->oom = true;
	}
}

/* Create request `issued` at the current time and route it. */
static void issue(sim *m)
{
	const serve_scenario *s = m->s;
	int id = m->issued++;
	req *q = &m->reqs[id];
	if (s->arrivals == SERVE_TRACE) {
		q->in = s->trace_in[id];
		q->out = s->trace_out[id];
	} else {
		q->in = serve_draw_len(m->rng, s->prompt_dist, s->prompt_tokens);
		q->out = serve_draw_len(m->rng, s->output_dist, s->output_tokens);
	}
	q->target = q->in;
	q->arrive = sim_engine_now(m->eng);
	q->first = q->done = -1;
	m->prompt_tokens += q->in;
	route(m, id);
}

static void on_arrival(sim_engine *eng, void *ctx, uint64_t arg)
{
	(void)arg;
	sim *m = ctx;
	const serve_scenario *s = m->s;
	issue(m);
	if (m->issued >= m->nreq)
		return;
	sim_time next = sim_engine_now(eng);
	if (s->arrivals == SERVE_POISSON)
		next = sim_time_add_sat(
			next, sim_time_from_s(-log(1.0 - sim_rng_uniform(m->rng)) / s->rate));
	else if (s->arrivals == SERVE_GAMMA) {
		double k = 1.0 / (s->burstiness * s->burstiness);
		next = sim_time_add_sat(next,
					sim_time_from_s(serve_gamma_draw(m->rng, k) / (k * s->rate)));
	}
	else
		next = sim_time_from_s(s->trace_t[m->issued]);
	if (next >= SIM_TIME_HORIZON) { /* the stream outlasts the clock: bad input */
		m->past_clock = true;
		return;
	}
	if (!sim_engine_schedule(eng, next, 1, on_arrival, m, 0))
		m->oom = true;
}

/* Preempt the last running request: back to the queue's head, its KV
 * dropped (recompute: prompt and generated tokens prefilled again) or
 * copied to the host (swap: copied back when it is admitted again). */
static void preempt_last(sim *m, replica *r)
{
	int id = r->run[--r->nrun];
	req *q = &m->reqs[id];
	bool room = (double)(r->host_blocks + q->blocks) * m->block_bytes <= m->s->swap_space_bytes;
	if (m->s->preempt == SERVE_SWAP && q->ctx > 0 && room) {
		q->swapped = true;
		q->host_blocks = q->blocks;
		r->host_blocks += q->blocks;
		r->swap_bytes += q->blocks * m->block_bytes;
	} else {
		q->ctx = 0;
		q->target = q->in + q->gen;
	}
	r->free_blocks += q->blocks;
	q->blocks = 0;
	push_wait(r, id, true);
	m->preemptions++;
}

/* Give request q blocks for `tokens` KV tokens; false when they are not free. */
static bool grow(replica *r, req *q, int64_t need)
{
	if (need <= q->blocks)
		return true;
	if (r->free_blocks < need - q->blocks)
		return false;
	r->free_blocks -= need - q->blocks;
	q->blocks = (int)need;
	return true;
}

/* Blocks for running request i up to `need`, preempting from the newest
 * running request back; false when i itself had to go. */
static bool make_room(sim *m, replica *r, int i, int64_t need)
{
	req *q = &m->reqs[r->run[i]];
	while (!grow(r, q, need) && r->nrun > i)
		preempt_last(m, r);
	return i < r->nrun;
}

static void plan_static(sim *m, replica *r, serve_batch *b)
{
	const serve_scenario *s = m->s;
	if (!r->batch_on) {
		while (r->wn > 0 && r->nrun < s->max_batch) {
			req *q = &m->reqs[r->wait[r->whead]];
			if (!grow(r, q, blocks_for(m, q->in + m->max_out)))
				break;
			r->run[r->nrun++] = pop_wait(r);
		}
		if (r->nrun == 0)
			return;
		r->batch_on = true;
		for (int i = 0; i < r->nrun; i++) {
			req *q = &m->reqs[r->run[i]];
			r->chunk[i] = q->target;
			b->prefill_tokens += q->target;
			b->prefill_attn += 0.5 * (double)q->target * q->target;
			b->prefills++;
			b->starts++;
			b->samples++;
		}
		return;
	}
	for (int i = 0; i < r->nrun; i++) { /* every slot decodes, finished ones as padding */
		req *q = &m->reqs[r->run[i]];
		r->chunk[i] = 0;
		b->decodes++;
		b->decode_ctx += q->ctx + 1;
		b->samples++;
	}
}

/* Admission, FIFO: waiting requests join while max_batch, the token budget
 * and the free blocks allow (the first that does not fit stops it). A
 * swapped request's KV comes back first; it decodes from the next
 * iteration. */
static void admit(sim *m, replica *r, const serve_batch *b, bool chunked, int budget)
{
	const serve_scenario *s = m->s;
	while (r->wn > 0 && r->nrun < s->max_batch) {
		req *q = &m->reqs[r->wait[r->whead]];
		if (q->swapped) {
			if (!grow(r, q, blocks_for(m, q->ctx)))
				break;
			q->swapped = false;
			r->host_blocks -= q->host_blocks;
			q->host_blocks = 0;
			r->swap_bytes += q->blocks * m->block_bytes;
			r->chunk[r->nrun] = -1;
			r->run[r->nrun++] = pop_wait(r);
			continue;
		}
		int c = q->target;
		bool alone = b->decodes == 0 && r->nrun == 0;
		if (chunked)
			c = c < budget ? c : budget;
		if (c <= 0 || (c > budget && !alone))
			break;
		if (!grow(r, q, blocks_for(m, c)))
			break;
		r->chunk[r->nrun] = c;
		r->run[r->nrun++] = pop_wait(r);
		budget -= c;
	}
}

static void plan_dynamic(sim *m, replica *r, serve_batch *b)
{
	const serve_scenario *s = m->s;
	bool chunked = s->batching == SERVE_CHUNKED;
	int budget = s->max_tokens;
	for (int i = 0; i < r->nrun; i++) { /* decodes first, preempting for blocks */
		req *q = &m->reqs[r->run[i]];
		r->chunk[i] = -1;
		if (q->ctx < q->target)
			continue;
		if (!make_room(m, r, i, blocks_for(m, q->ctx + 1))) /* it preempted itself */
			break;
		r->chunk[i] = 0;
		b->decodes++;
		b->decode_ctx += q->ctx + 1;
		b->samples++;
		budget--;
	}
	for (int i = 0; chunked && i < r->nrun; i++) { /* partial prefills continue */
		req *q = &m->reqs[r->run[i]];
		if (q->ctx >= q->target || budget <= 0)
			continue;
		int c = q->target - q->ctx < budget ? q->target - q->ctx : budget;
		if (!make_room(m, r, i, blocks_for(m, q->ctx + c)))
			break;
		r->chunk[i] = c;
		budget -= c;
	}
	admit(m, r, b, chunked, budget);
	/* the batch as planned: counted again over the requests still running
	 * (a partial prefill may have preempted a planned decode) */
	*b = (serve_batch){0};
	for (int i = 0; i < r->nrun; i++) {
		req *q = &m->reqs[r->run[i]];
		int c = r->chunk[i];
		if (c == 0) {
			b->decodes++;
			b->decode_ctx += q->ctx + 1;
			b->samples++;
		}
		if (c <= 0)
			continue;
		b->prefill_tokens += c;
		b->prefill_attn += c * (q->ctx + 0.5 * c);
		b->prefills++;
		b->starts += q->ctx == 0;
		if (q->ctx + c >= q->target)
			b->samples++;
	}
}

static void on_iter_end(sim_engine *eng, void *ctx, uint64_t arg);

/* One iteration as a trace slice and the replica's counters at its start. */
static void trace_iteration(sim *m, int ri, const serve_batch *b, sim_time now, double dt,
			    int64_t used)
{
	const replica *r = &m->rep[ri];
	double ts = sim_time_to_s(now) * 1e6;
	fprintf(m->trace,
		",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":0,\"ts\":%.3f,\"dur\":%.3f,"
		"\"args\":{\"decodes\":%d,\"prefill_tokens\":%d,\"requests\":%d}}",
		b->prefill_tokens > 0 ? (b->decodes > 0 ? "mixed" : "prefill") : "decode", ri, ts,
		dt * 1e6, b->decodes, b->prefill_tokens, r->nrun);
	fprintf(m->trace,
		",\n{\"name\":\"kv blocks\",\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,"
		"\"args\":{\"used\":%lld}}"
		",\n{\"name\":\"requests\",\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,"
		"\"args\":{\"running\":%d,\"waiting\":%d}}",
		ri, ts, (long long)used, ri, ts, r->nrun, r->wn);
}

static void start_iteration(sim *m, int ri)
{
	replica *r = &m->rep[ri];
	serve_batch b = {0};
	if (m->s->batching == SERVE_STATIC)
		plan_static(m, r, &b);
	else
		plan_dynamic(m, r, &b);
	if (b.decodes + b.prefill_tokens == 0 && r->swap_bytes == 0) {
		r->busy = false;
		return;
	}
	r->busy = true;
	/* swaps move over PCIe before the step runs (the step waits for them) */
	const net_node *nd = &m->s->cluster.node;
	double dt = serve_iteration_s(m->cost, &b) + r->swap_bytes / (nd->pcie_Bps * nd->pcie_eff);
	m->swapped += r->swap_bytes;
	r->swap_bytes = 0;
	int64_t used = r->total_blocks - r->free_blocks;
	r->kv_area += (double)used * dt;
	r->run_area += r->nrun * dt;
	r->wait_area += r->wn * dt;
	if (used > r->kv_peak)
		r->kv_peak = used;
	m->iterations++;
	sim_time now = sim_engine_now(m->eng), dur = sim_time_from_s(dt);
	if (sim_time_add_sat(now, dur) >= SIM_TIME_HORIZON) {
		m->past_clock = true;
		return;
	}
	r->iter_start = now;
	if (m->trace)
		trace_iteration(m, ri, &b, now, dt, used);
	if (!sim_engine_schedule(m->eng, now + (dur > 0 ? dur : 1), 0, on_iter_end, m, (uint64_t)ri))
		m->oom = true;
}

/* A request emits a token now; true when it is done. */
static bool emit(sim *m, req *q, sim_time now)
{
	if (q->gen >= q->out) /* static padding */
		return false;
	if (++q->gen == 1)
		q->first = now;
	m->output_tokens++;
	if (q->gen < q->out)
		return false;
	q->done = now;
	m->completed++;
	if (m->progress && (m->completed % 1000 == 0 || m->completed == m->nreq))
		m->progress(m->completed, m->nreq, m->progress_ctx);
	return true;
}

static void on_iter_end(sim_engine *eng, void *ctx, uint64_t arg)
{
	sim *m = ctx;
	replica *r = &m->rep[arg];
	sim_time now = sim_engine_now(eng);
	bool is_static = m->s->batching == SERVE_STATIC;
	int kept = 0, newly_done = 0, left = 0;
	for (int i = 0; i < r->nrun; i++) {
		int id = r->run[i], c = r->chunk[i];
		req *q = &m->reqs[id];
		bool done = false;
		if (c > 0) {
			q->ctx += c;
			if (q->ctx >= q->target)
				done = emit(m, q, now);
		} else if (c == 0 && q->gen < q->out) {
			q->ctx++;
			done = emit(m, q, now);
		}
		newly_done += done;
		if (done && !is_static) {
			r->free_blocks += q->blocks;
			q->blocks = 0;
			continue;
		}
		left += q->gen < q->out;
		r->run[kept] = id;
		r->chunk[kept++] = c;
	}
	r->nrun = kept;
	if (is_static && left == 0) { /* the batch ends: its blocks return */
		for (int i = 0; i < r->nrun; i++) {
			r->free_blocks += m->reqs[r->run[i]].blocks;
			m->reqs[r->run[i]].blocks = 0;
		}
		r->nrun = 0;
		r->batch_on = false;
	}
	/* a closed loop's clients send their next request at once */
	for (int k = 0; m->s->arrivals == SERVE_CLOSED && k < newly_done && m->issued < m->nreq; k++)
		issue(m);
	start_iteration(m, (int)arg);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Mean and nearest-rank percentiles of v[0..n) (sorted here); cdf[q] the
 * q-th percentile, q = 0..100 (0: the minimum). */
static void stat_of(double *v, int n, serve_stat *out, double cdf[101])
{
	*out = (serve_stat){0};
	for (int q = 0; q <= 100; q++)
		cdf[q] = 0;
	if (n <= 0)
		return;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	out->mean = sum / n;
	double ps[3] = {0.5, 0.9, 0.99}, *dst[3] = {&out->p50, &out->p90, &out->p99};
	for (int k = 0; k < 3; k++) {
		int rank = (int)ceil(ps[k] * n);
		*dst[k] = v[(rank < 1 ? 1 : rank) - 1];
	}
	out->max = v[n - 1];
	for (int q = 0; q <= 100; q++) {
		int rank = (int)ceil(q / 100.0 * n);
		cdf[q] = v[(rank < 1 ? 1 : rank) - 1];
	}
}

static int summarise(const sim *m, serve_result *o)
{
	const serve_scenario *s = m->s;
	int n = m->nreq;
	double *a = malloc(3 * (size_t)n * sizeof *a);
	if (!a)
		return SIM_ENOMEM;
	double *tt = a, *tp = a + n, *ee = a + 2 * n;
	int nt = 0, np = 0, ok = 0;
	sim_time t0 = SIM_TIME_MAX, t1 = 0;
	for (int i = 0; i < n; i++) {
		const req *q = &m->reqs[i];
		if (q->done < 0)
			continue;
		t0 = q->arrive < t0 ? q->arrive : t0;
		t1 = q->done > t1 ? q->done : t1;
		double ttft = sim_time_to_s(q->first - q->arrive);
		double tpot = q->out > 1 ? sim_time_to_s(q->done - q->first) / (q->out - 1) : 0;
		tt[nt] = ttft;
		ee[nt++] = sim_time_to_s(q->done - q->arrive);
		if (q->out > 1)
			tp[np++] = tpot;
		ok += ttft <= s->slo_ttft_s && tpot <= s->slo_tpot_s;
	}
	o->makespan_s = nt > 0 ? sim_time_to_s(t1 - t0) : 0;
	stat_of(tt, nt, &o->ttft, o->cdf[0]);
	stat_of(tp, np, &o->tpot, o->cdf[1]);
	stat_of(ee, nt, &o->e2e, o->cdf[2]);
	free(a);
	double span = o->makespan_s > 0 ? o->makespan_s : 1;
	o->requests = n;
	o->completed = m->completed;
	o->preemptions = m->preemptions;
	o->swapped_bytes = m->swapped;
	o->iterations = m->iterations;
	o->prompt_tokens = m->prompt_tokens;
	o->output_tokens = m->output_tokens;
	o->req_per_s = m->completed / span;
	o->out_tok_per_s = (double)m->output_tokens / span;
	o->out_tok_per_s_gpu = o->out_tok_per_s / o->gpus;
	o->goodput_req_per_s = ok / span;
	o->slo_met = nt > 0 ? (double)ok / nt : 0;
	double kv = 0, run = 0, wait = 0, cap = 0;
	for (int i = 0; i < s->replicas; i++) {
		const replica *r = &m->rep[i];
		kv += r->kv_area;
		run += r->run_area;
		wait += r->wait_area;
		cap += (double)r->total_blocks;
		double pk = r->total_blocks > 0 ? (double)r->kv_peak / (double)r->total_blocks : 0;
		o->kv_peak = pk > o->kv_peak ? pk : o->kv_peak;
	}
	o->kv_mean = cap > 0 ? kv / (cap * span) : 0;
	o->batch_mean = run / (s->replicas * span);
	o->queue_mean = wait / (s->replicas * span);
	return SIM_OK;
}

static void label_of(const serve_scenario *s, serve_result *o)
{
	snprintf(o->label, sizeof o->label, "%.40s tp%d pp%d x%d %s %s kv-%s", s->engine.name, s->tp,
		 s->pp, s->replicas, serve_batching_name(s->batching), serve_weights_name(s->weights),
		 hw_dtype_name(s->kv_dtype));
}

static int sim_init(sim *m, const serve_scenario *s)
{
	memset(m, 0, sizeof *m);
	m->s = s;
	m->nreq = s->requests;
	m->B = s->engine.block_tokens;
	m->max_out = serve_len_max(s->output_dist, s->output_tokens);
	for (int i = 0; s->arrivals == SERVE_TRACE && i < s->requests; i++)
		m->max_out = s->trace_out[i] > m->max_out ? s->trace_out[i] : m->max_out;
	serve_memory mem;
	serve_memory_of(s, &mem);
	m->block_bytes = mem.kv_token_bytes * m->B;
	m->eng = sim_engine_new();
	m->rng = sim_rng_new(s->seed);
	m->reqs = calloc((size_t)m->nreq, sizeof *m->reqs);
	m->rep = calloc((size_t)s->replicas, sizeof *m->rep);
	if (!m->eng || !m->rng || !m->reqs || !m->rep || serve_cost_new(s, &m->cost) != SIM_OK)
		return SIM_ENOMEM;
	for (int i = 0; i < s->replicas; i++) {
		replica *r = &m->rep[i];
		r->run = malloc((size_t)s->max_batch * sizeof *r->run);
		r->chunk = malloc((size_t)s->max_batch * sizeof *r->chunk);
		r->wcap = m->nreq + 1;
		r->wait = malloc((size_t)r->wcap * sizeof *r->wait);
		if (!r->run || !r->chunk || !r->wait)
			return SIM_ENOMEM;
		r->total_blocks = r->free_blocks = mem.kv_blocks;
	}
	return SIM_OK;
}

static void sim_free(sim *m)
{
	for (int i = 0; m->rep && i < m->s->replicas; i++) {
		free(m->rep[i].run);
		free(m->rep[i].chunk);
		free(m->rep[i].wait);
	}
	free(m->rep);
	free(m->reqs);
	serve_cost_free(m->cost);
	sim_rng_free(m->rng);
	sim_engine_free(m->eng);
}

int serve_run(const serve_scenario *s, serve_result *out, sim_diag *diag)
{
	return serve_run_trace(s, out, NULL, diag);
}

void serve_price(const serve_scenario *s, serve_result *out)
{
	const net_cluster *c = &s->cluster;
	double tps = out->out_tok_per_s > 0 ? out->out_tok_per_s : NAN;
	out->usd_per_mtok = c->gpu_hour_usd > 0 ? out->gpus * c->gpu_hour_usd / 3600 / tps * 1e6 : NAN;
	double w = s->gpu.tdp_w + (c->node.gpus > 0 ? c->node.power_w / c->node.gpus : 0);
	out->joule_per_tok = out->gpus * w * (c->pue > 0 ? c->pue : 1) / tps;
}

int serve_run_trace(const serve_scenario *s, serve_result *out, FILE *trace, sim_diag *diag)
{
	return serve_run_progress(s, out, trace, NULL, NULL, diag);
}

int serve_run_progress(const serve_scenario *s, serve_result *out, FILE *trace,
		       serve_progress_fn fn, void *ctx, sim_diag *diag)
{
	(void)diag;
	clock_t c0 = clock();
	memset(out, 0, sizeof *out);
	sim m;
	int rc = sim_init(&m, s);
	m.trace = trace;
	m.progress = fn;
	m.progress_ctx = ctx;
	if (trace) {
		fprintf(trace, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
			       "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":"
			       "\"replica 0\"}}");
		for (int i = 1; i < s->replicas; i++)
			fprintf(trace, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
				       "\"args\":{\"name\":\"replica %d\"}}", i, i);
	}
	if (rc == SIM_OK) {
		if (s->arrivals == SERVE_OFFLINE || s->arrivals == SERVE_CLOSED) {
			int n = s->arrivals == SERVE_OFFLINE ? m.nreq
				: s->concurrency < m.nreq ? s->concurrency : m.nreq;
			for (int i = 0; i < n; i++)
				issue(&m);
		} else {
			sim_time t0 = s->arrivals == SERVE_TRACE ? sim_time_from_s(s->trace_t[0]) : 0;
			if (!sim_engine_schedule(m.eng, t0, 1, on_arrival, &m, 0))
				m.oom = true;
		}
		sim_engine_run(m.eng, SIM_TIME_MAX);
		rc = m.oom ? SIM_ENOMEM : m.past_clock ? SIM_ERANGE : SIM_OK;
	}
	if (rc == SIM_OK) {
		snprintf(out->name, sizeof out->name, "%s", s->name);
		snprintf(out->gpu, sizeof out->gpu, "%s", s->gpu.name);
		snprintf(out->model, sizeof out->model, "%s", s->model.name);
		out->gpus = s->replicas * s->tp * s->pp;
		out->slo_ttft_s = s->slo_ttft_s;
		out->slo_tpot_s = s->slo_tpot_s;
		label_of(s, out);
		serve_memory_of(s, &out->mem);
		rc = summarise(&m, out);
		serve_price(s, out);
	}
	if (trace)
		fprintf(trace, "\n]}\n");
	sim_free(&m);
	out->wall_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	return rc;
}

/* serve_int.h - internals shared by the serve module's files. */
#ifndef PODSIM_SERVE_INT_H
#define PODSIM_SERVE_INT_H

#include "serve.h"

/* The largest length a distribution draws around `mean` (scenario.c). */
int serve_len_max(serve_len_dist dist, int mean);
/* One draw (engine.c): fixed = mean; uniform integer in [mean - mean/2,
 * mean + mean/2]; exponential with that mean, rounded up, capped at 4 x mean. */
int serve_draw_len(sim_rng *r, serve_len_dist dist, int mean);
/* A gamma variate of shape k, scale 1 (engine.c). */
double serve_gamma_draw(sim_rng *r, double k);
/* Read s->trace_path (trace.c) into s->trace_*: errors at the trace's lines. */
int serve_trace_load(serve_scenario *s, sim_diag *d);
/* Weight bytes per element and the GEMMs' dtype (cost.c). */
double serve_weight_bytes(serve_weights w);
hw_dtype serve_gemm_dtype(serve_weights w);
const char *serve_weights_name(serve_weights w);
const char *serve_batching_name(serve_batching b);
/* Cost (USD per million output tokens, NaN without a GPU-hour price) and
 * energy per output token of a result whose throughput is set (engine.c). */
void serve_price(const serve_scenario *s, serve_result *out);

#endif

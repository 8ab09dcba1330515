/* energy.c - the energy and CO2 lines of run, estimate and sweep: each term
 * on its own line with where its number comes from (sweep_energy_terms holds
 * the formulas), and the same terms in run's --json. Years are 8,760 hours
 * wherever podsim converts. */
#include "cli/cli.h"
#include "sweep/sweep.h"

#include <stdbool.h>
#include <stdio.h>

/* "12.3 MWh" or, under 0.1 MWh, "45.6 kWh" (a step is watt-hours). */
static void energy_text(double mwh, char *buf, size_t n)
{
	if (mwh >= 0.1)
		snprintf(buf, n, "%.4g MWh", mwh);
	else if (mwh * 1e3 >= 0.1)
		snprintf(buf, n, "%.4g kWh", mwh * 1e3);
	else
		snprintf(buf, n, "%.4g Wh", mwh * 1e6);
}

static void co2_text(double t, char *buf, size_t n)
{
	if (t >= 0.1)
		snprintf(buf, n, "%.4g t CO2e", t);
	else if (t >= 1e-4)
		snprintf(buf, n, "%.4g kg CO2e", t * 1e3);
	else
		snprintf(buf, n, "%.4g g CO2e", t * 1e6);
}

void cli_energy_print(FILE *f, const char *title, const sweep_energy *e, const char *gpu,
		      const char *node_src, bool opts)
{
	const char *pw = opts ? "--power" : "[cluster] gpu_power";
	const char *pue = opts ? "--pue" : "[cluster] pue";
	const char *gi = opts ? "--grid-intensity" : "[cluster] grid_intensity";
	char a[48], b[48];
	fprintf(f, "%s\n", title);
	if (e->measured)
		fprintf(f, "  GPU power       %.0f x %.0f W = %.4g kW (measured average, %s; TDP %.0f W)\n",
			e->gpus, e->gpu_w, e->gpu_kw, pw, e->tdp_w);
	else if (e->other_gpus > 0)
		fprintf(f,
		        "  GPU power       %.4g x %.0f W + %.4g x %.0f W = %.4g kW (TDP, %s [gpu] tdp; "
		        "%s [cluster] other_gpu)\n",
		        e->gpus - e->other_gpus, e->gpu_w, e->other_gpus, e->other_w, e->gpu_kw, gpu,
		        e->other_gpu);
	else
		fprintf(f, "  GPU power       %.4g x %.0f W = %.4g kW (TDP, %s [gpu] tdp)\n", e->gpus,
			e->gpu_w, e->gpu_kw, gpu);
	if (e->other_nodes > 0)
		fprintf(f,
		        "  node overhead   %.4g x %.0f W + %.4g x %.0f W = %.4g kW (%s, the other "
		        "nodes' own: CPUs, NICs, fans)\n",
		        e->nodes - e->other_nodes, e->node_w, e->other_nodes, e->other_node_w,
		        e->node_kw, node_src);
	else
		fprintf(f, "  node overhead   %.4g x %.0f W = %.4g kW (%s: CPUs, NICs, fans)\n",
		        e->nodes, e->node_w, e->node_kw, node_src);
	fprintf(f, "  PUE             %.3g (%s%s)\n", e->pue, pue,
		e->pue == 1 ? "; 1 = no facility overhead counted" : "");
	fprintf(f, "  facility power  (%.4g + %.4g) kW x %.3g = %.4g kW\n", e->gpu_kw, e->node_kw,
		e->pue, e->facility_kw);
	energy_text(e->mwh, a, sizeof a);
	fprintf(f, "  energy          %.4g kW x %.4g h = %s\n", e->facility_kw, e->hours, a);
	co2_text(e->tco2, b, sizeof b);
	fprintf(f, "  CO2             x %.3g kg/kWh (%s%s) = %s\n", e->kg_per_kwh, gi,
		e->kg_per_kwh == 0.423 ? ", Llama 2's" : "", b);
	energy_text(e->gpu_tdp_mwh, a, sizeof a);
	co2_text(e->gpu_tdp_mwh * e->kg_per_kwh, b, sizeof b);
	fprintf(f, "  Llama 2's way   the GPUs alone at TDP, PUE 1: %s, %s\n", a, b);
}

static void jnum(sim_buf *b, const char *key, double v)
{
	sim_buf_printf(b, "\"%s\":%.9g,", key, v);
}

static void jstr(sim_buf *b, const char *key, const char *v)
{
	sim_buf_printf(b, "\"%s\":", key);
	sim_buf_json_string(b, v);
	sim_buf_append(b, ",", 1);
}

void cli_energy_json(sim_buf *b, const sweep_energy *e, const char *gpu, const char *node_src)
{
	char src[160];
	if (e->measured)
		snprintf(src, sizeof src, "measured average, [cluster] gpu_power (TDP %.0f W)",
			 e->tdp_w);
	else
		snprintf(src, sizeof src, "TDP, %s [gpu] tdp", gpu);
	sim_buf_append(b, "\"energy_per_step\":{", 19);
	jnum(b, "gpus", e->gpus);
	jnum(b, "gpu_power_w", e->gpu_w);
	jstr(b, "gpu_power_source", src);
	if (e->other_gpus > 0) {
		jnum(b, "other_gpus", e->other_gpus);
		jnum(b, "other_gpu_power_w", e->other_w);
		jstr(b, "other_gpu", e->other_gpu);
	}
	if (e->other_nodes > 0) {
		jnum(b, "other_nodes", e->other_nodes);
		jnum(b, "other_node_overhead_w", e->other_node_w);
	}
	jnum(b, "gpu_kw", e->gpu_kw);
	jnum(b, "nodes", e->nodes);
	jnum(b, "node_overhead_w", e->node_w);
	jstr(b, "node_overhead_source", node_src);
	jnum(b, "node_kw", e->node_kw);
	jnum(b, "pue", e->pue);
	jstr(b, "pue_source", "[cluster] pue");
	jnum(b, "facility_kw", e->facility_kw);
	jnum(b, "hours", e->hours);
	jnum(b, "energy_kwh", e->mwh * 1e3);
	jnum(b, "grid_kg_per_kwh", e->kg_per_kwh);
	jstr(b, "grid_source", "[cluster] grid_intensity");
	jnum(b, "co2_kg", e->tco2 * 1e3);
	sim_buf_printf(b, "\"gpus_at_tdp_pue1_kwh\":%.9g}", e->gpu_tdp_mwh * 1e3);
}

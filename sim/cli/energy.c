/* energy.c - the energy and CO2 lines of run, estimate and sweep: each term
 * on its own line with where its number comes from (sweep_energy_terms holds
 * the formulas). Years are 8,760 hours wherever podsim converts. */
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
	else
		fprintf(f, "  GPU power       %.4g x %.0f W = %.4g kW (TDP, %s [gpu] tdp)\n", e->gpus,
			e->gpu_w, e->gpu_kw, gpu);
	fprintf(f, "  node overhead   %.4g x %.0f W = %.4g kW (%s: CPUs, NICs, fans)\n", e->nodes,
		e->node_w, e->node_kw, node_src);
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

/* cost.c - energy, cost and carbon of a simulated step and of a whole
 * training run (formulas in sweep.h).
 *
 * Power: the GPU's [gpu] tdp and the node's [node] power (CPUs, NICs, fans);
 * price and grid intensity: [cluster] gpu_hour_price and grid_intensity;
 * data-centre overhead: [cluster] pue. Units: J, kWh, USD, t CO2e. */
#include "sweep_int.h"

#include <stdio.h>

/* The cluster's node overhead, W: every node at the main node's [node]
 * power, the other type's at their own (sweep_other_nodes). */
static double nodes_power_w(const plan_scenario *s)
{
	double on = sweep_other_nodes(s);
	return (s->cluster.nodes - on) * s->cluster.node.power_w + on * s->other_net.power_w;
}

void sweep_cost_step(const plan_scenario *s, const exec_result *r, sweep_cost *c)
{
	c->busy = exec_busy_share(r);
	double gpus = r->gpus, pue = s->cluster.pue > 0 ? s->cluster.pue : 1;
	double node_w = nodes_power_w(s);
	double o = sweep_other_gpus(s, gpus); /* at the other GPU's TDP */
	double tdp = (gpus - o) * s->gpu.tdp_w + o * s->other_gpu.tdp_w;
	c->energy_j = pue * r->step_s * (tdp * c->busy + node_w);
	c->energy_tdp_j = pue * r->step_s * (tdp + node_w);
	c->cost_usd = gpus * r->step_s / 3600.0 * s->cluster.gpu_hour_usd;
}

void sweep_energy_terms(const hw_gpu *g, const net_cluster *c, double gpus, double nodes,
			double hours, sweep_energy *e)
{
	*e = (sweep_energy){.gpus = gpus, .tdp_w = g->tdp_w, .nodes = nodes, .hours = hours};
	e->measured = c->gpu_power_w > 0;
	e->gpu_w = e->measured ? c->gpu_power_w : g->tdp_w;
	e->node_w = c->node.power_w;
	e->pue = c->pue > 0 ? c->pue : 1;
	e->kg_per_kwh = c->grid_kg_per_kwh;
	e->gpu_kw = gpus * e->gpu_w / 1e3;
	e->node_kw = nodes * e->node_w / 1e3;
	e->facility_kw = (e->gpu_kw + e->node_kw) * e->pue;
	e->mwh = e->facility_kw * hours / 1e3;
	e->tco2 = e->mwh * e->kg_per_kwh; /* MWh x kg/kWh = t */
	e->gpu_tdp_mwh = gpus * g->tdp_w * hours / 1e6;
}

double sweep_other_gpus(const plan_scenario *s, double gpus)
{
	int gpn = s->cluster.node.gpus > 0 ? s->cluster.node.gpus : 1;
	double o = 0;
	for (int n = 0; n < s->other_len && s->other_node && n * (double)gpn < gpus; n++)
		if (s->other_node[n])
			o += gpus - n * (double)gpn < gpn ? gpus - n * (double)gpn : gpn;
	return o;
}

double sweep_other_nodes(const plan_scenario *s)
{
	double on = 0;
	for (int n = 0; s->other_links && s->other_node && n < s->other_len && n < s->cluster.nodes;
	     n++)
		on += s->other_node[n];
	return on;
}

void sweep_energy_scenario(const plan_scenario *s, double gpus, double hours, sweep_energy *e)
{
	sweep_energy_terms(&s->gpu, &s->cluster, gpus, s->cluster.nodes, hours, e);
	double o = sweep_other_gpus(s, gpus), on = sweep_other_nodes(s);
	if (on > 0) {
		e->other_nodes = on;
		e->other_node_w = s->other_net.power_w;
		e->node_kw = nodes_power_w(s) / 1e3;
		e->facility_kw = (e->gpu_kw + e->node_kw) * e->pue;
		e->mwh = e->facility_kw * hours / 1e3;
		e->tco2 = e->mwh * e->kg_per_kwh;
	}
	if (!(o > 0))
		return;
	e->other_gpus = o;
	e->other_w = s->other_gpu.tdp_w;
	snprintf(e->other_gpu, sizeof e->other_gpu, "%s", s->other_gpu.name);
	if (!e->measured)
		e->gpu_kw = ((gpus - o) * e->gpu_w + o * e->other_w) / 1e3;
	e->facility_kw = (e->gpu_kw + e->node_kw) * e->pue;
	e->mwh = e->facility_kw * hours / 1e3;
	e->tco2 = e->mwh * e->kg_per_kwh;
	e->gpu_tdp_mwh = ((gpus - o) * s->gpu.tdp_w + o * e->other_w) * hours / 1e6;
}

void sweep_train_cost(const plan_scenario *s, const exec_result *r, const sweep_cost *c,
                      double tokens, sweep_train *t)
{
	t->tokens = tokens;
	t->steps = r->tokens_per_step > 0 ? tokens / r->tokens_per_step : 0;
	/* the mean sampled step (campaign_setup's fabric factor): energy and
	 * cost per step at the step's power, for the longer mean step */
	t->step_factor = exec_mean_step_factor(r);
	t->time_s = t->steps * r->step_s * t->step_factor;
	t->gpu_hours = t->time_s * r->gpus / 3600.0;
	t->energy_kwh = t->steps * c->energy_j * t->step_factor / 3.6e6;
	t->energy_tdp_kwh = t->steps * c->energy_tdp_j * t->step_factor / 3.6e6;
	t->cost_usd = t->steps * c->cost_usd * t->step_factor;
	t->tco2 = t->energy_kwh * s->cluster.grid_kg_per_kwh / 1000.0;
	t->tco2_tdp = t->energy_tdp_kwh * s->cluster.grid_kg_per_kwh / 1000.0;
	t->flops_6pd = 6.0 * work_params_total(&s->model) * tokens;
}

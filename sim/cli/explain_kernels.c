/* explain_kernels.c - `podsim explain --kernels`: one layer's kernels as the
 * step replays them, each with its time and what bounds it.
 *
 * The items are the layer program plan_build times (work_layer_forward_at /
 * work_layer_backward_at on the plan's shard, plan_shard: the framework's
 * layer code, its TP shard, the micro-batch, fused or unfused attention,
 * fp8 casts); each kernel's GPU time is plan_ub_gemm_time's
 * (plan_kernel_time, or a GEMM beside a userbuffer reduce-scatter on the SMs
 * its margin leaves, as plan_build times it) less the framework's host cost
 * per launch (plan_item_framework_s: what the host pays, not the GPU), so
 * the column adds up to what one micro-batch of the layer costs the
 * compute stream before communication and recomputation.
 * Rates: GEMMs in TFLOP/s of their tensor FLOPs against the GPU's peak in
 * the plan's dtype (hw_peak; the sustained clock included in the time),
 * fused attention in the FLOPs it executes (the causal half of the papers'
 * count, the backward 2.5x the forward) against the peak it runs at (bf16
 * under an fp8 recipe), memory-bound kernels in GB/s of HBM traffic against
 * hbm_bw.
 * Collectives are listed with their buffer, untimed here (sections 5 and 7
 * time them as the replay does: the group, the fabric, overlap).
 * The layer shown: the first MoE layer of an MoE model, else layer 0. */
#include "explain_int.h"

/* A collective's name, as net calls the one plan times it with
 * (plan_comm_coll), and the group it runs on where that is not TP. */
static const char *comm_name(work_comm c, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s", net_coll_name(plan_comm_coll(c)),
		 work_comm_on_ep(c)         ? " (ep)"
		 : c == WORK_COMM_CP_RING   ? " (cp ring)"
		 : work_comm_on_cp(c)       ? " (cp)"
		                            : "");
	return buf;
}

/* One pass's rows; the GPU time of its kernels by kind into sum[3] (GEMM,
 * attention, memory-bound) and returned. */
static double print_pass(FILE *o, const plan_scenario *s, hw_dtype t, const char *pass,
			 const work_item *it, int n, double sum[3])
{
	const hw_gpu *g = &s->gpu;
	double total = 0, peak = hw_peak(g, t);
	for (int i = 0; i < n; i++) {
		const work_item *x = &it[i];
		char shape[48], rate[56], b[32];
		if (x->kind == WORK_ITEM_COMM) {
			fprintf(o, "  %-4s %-18s %-9s %-26s %10s  %s\n", pass, x->name, "comm",
				comm_name(x->comm, shape, sizeof shape), "-",
				explain_gib(x->comm_bytes, b, sizeof b));
			continue;
		}
		int l = x->launches > 0 ? x->launches : 1;
		double us = (plan_ub_gemm_time(s, t, it, n, i) - l * plan_item_framework_s(g, x)) * 1e6;
		const char *kind = x->kernel == WORK_KERNEL_GEMM   ? "gemm"
				   : x->kernel == WORK_KERNEL_ATTN ? "attention"
								   : "memory";
		if (x->kernel == WORK_KERNEL_GEMM) {
			double bt = x->batch > 1 ? x->batch : 1;
			if (bt > 1)
				snprintf(shape, sizeof shape, "%.0fx%.0fx%.0f x%.0f", x->m, x->n, x->k, bt);
			else
				snprintf(shape, sizeof shape, "%.0fx%.0fx%.0f", x->m, x->n, x->k);
		} else if (l > 1) {
			snprintf(shape, sizeof shape, "%s in %d kernels",
				 explain_gib(x->bytes, b, sizeof b), l);
		} else {
			snprintf(shape, sizeof shape, "%s", explain_gib(x->bytes, b, sizeof b));
		}
		/* a fused attention kernel executes the causal half of the papers'
		 * count it carries, its backward 2.5x its forward, in bf16 under
		 * an fp8 recipe (plan_kernel_time) */
		bool at = x->kernel == WORK_KERNEL_ATTN;
		hw_flash_work w = at ? plan_attn_work(x) : (hw_flash_work){x->flops, 0, 0, x->bytes};
		double fl = w.flops;
		double pk = at && t == HW_FP8 ? hw_peak(g, HW_BF16) : peak;
		/* ... and of its time, the share its softmax's exponentials take on
		 * the special-function units (hw/attn.c), at the step's clock */
		double ex = hw_flash_exp_time(g, &w);
		if (at && ex > 0 && fl > 0 && us > 0)
			snprintf(rate, sizeof rate, "%6.1f TFLOP/s (%3.0f%%), exp %.0f%%",
				 fl / us * 1e-6, 100 * fl / (us * 1e-6) / pk, 100 * ex / (us * 1e-6));
		else if (x->kernel != WORK_KERNEL_MEM && fl > 0 && us > 0)
			snprintf(rate, sizeof rate, "%6.1f TFLOP/s (%3.0f%%)", fl / us * 1e-6,
				 100 * fl / (us * 1e-6) / pk);
		else if (x->bytes > 0 && us > 0)
			snprintf(rate, sizeof rate, "%6.0f GB/s (%3.0f%%)", x->bytes / us * 1e-3,
				 100 * x->bytes / (us * 1e-6) / g->hbm_Bps);
		else
			snprintf(rate, sizeof rate, "-");
		fprintf(o, "  %-4s %-18s %-9s %-26s %10.1f  %s\n", pass, x->name, kind, shape, us,
			rate);
		sum[x->kernel == WORK_KERNEL_GEMM ? 0 : x->kernel == WORK_KERNEL_ATTN ? 1 : 2] += us;
		total += us;
	}
	return total;
}

void explain_kernels(FILE *o, int number, const plan_scenario *s)
{
	work_shard sh = plan_shard(s);
	const work_model *m = &s->model;
	int layer = 0; /* the first MoE layer, if any */
	while (layer < m->layers - 1 && m->moe_experts > 0 && !work_layer_is_moe(m, layer))
		layer++;
	work_item f[WORK_MAX_ITEMS], b[WORK_MAX_ITEMS];
	int nf = work_layer_forward_at(m, &sh, layer, f);
	int nb = work_layer_backward_at(m, &sh, layer, b);
	fprintf(o,
		"\n%d. Kernels of one layer (layer %d, one micro-batch of %d x %d tokens on a tp = %d "
		"rank, %s; layer code %s)\n",
		number, layer, sh.micro_batch, sh.seq, sh.tp > 0 ? sh.tp : 1, hw_dtype_name(sh.dtype),
		work_layer_code_name(sh.layer_code));
	fprintf(o, "  %-4s %-18s %-9s %-26s %10s  %s\n", "pass", "kernel", "kind",
		"shape (m x n x k) / bytes", "GPU us", "rate (of peak)");
	double fs[3] = {0}, bs[3] = {0};
	double tf = print_pass(o, s, sh.dtype, "fwd", f, nf, fs);
	double tb = print_pass(o, s, sh.dtype, "bwd", b, nb, bs);
	fprintf(o,
		"  forward      %.1f us: GEMMs %.0f%%, attention %.0f%%, memory-bound %.0f%%\n"
		"  backward     %.1f us: GEMMs %.0f%%, attention %.0f%%, memory-bound %.0f%%\n",
		tf, tf > 0 ? 100 * fs[0] / tf : 0, tf > 0 ? 100 * fs[1] / tf : 0,
		tf > 0 ? 100 * fs[2] / tf : 0, tb, tb > 0 ? 100 * bs[0] / tb : 0,
		tb > 0 ? 100 * bs[1] / tb : 0, tb > 0 ? 100 * bs[2] / tb : 0);
	explain_why(o, "each kernel's GPU time as the replay charges it (the framework's host cost "
		       "per launch left out: section 7 counts it), its rate against the GPU's peak "
		       "in its dtype (fused attention: the causal FLOPs it executes, in bf16 under "
		       "fp8, and the share of its time its softmax's exponentials take on the "
		       "special-function units, one per score element at 16 per clock per SM) or "
		       "its HBM bandwidth; recomputation runs the forward again "
		       "before the backward, and the collectives are timed in sections 5 and 7.");
}

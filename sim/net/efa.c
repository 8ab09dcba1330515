/* efa.c - the aws-ofi-nccl region tuner: which of its regions contain a
 * call (net_efa_region in coll.c applies them; the tables are
 * efa_tables.c).
 *
 * The plugin's default tuner on p5/p5e, p5en and p6-b200 (type REGION, A =
 * aws/aws-ofi-nccl 2daf7d30, src/tuner/nccl_ofi_tuner.cpp:76-110: the
 * region tuner wherever the platform has one, include/nccl_ofi_param.h:268)
 * describes, per platform, collective and ranks-per-node layout, polygons in
 * the plane (log2 bytes, log2 ranks). The platform is the EC2 instance type
 * (A include/tuner/nccl_ofi_tuner_process_config.h:38-50): podsim's [node]
 * ec2_instance. For a call it takes the first polygon in its list, whose
 * algorithm and protocol NCCL marks applicable, that contains the point,
 * boundary included, and forces that pair (A src/tuner/
 * nccl_ofi_regions.cpp:2070-2133, the v3/v6 tuner NCCL 2.19 and later
 * load). NCCL's own tuner decides (A :2081-2099, :2127-2130):
 *   - on 2 nodes or fewer (the regions are "not well defined" there);
 *   - for a layout the platform has no table for: p5/p5e lists 8, 2 and 1
 *     ranks per node (all-reduce for 8 and 2; all-reduce, all-gather and
 *     reduce-scatter for 1), p5en and p6-b200 8 and 1 ranks per node (the
 *     three collectives each); anything else, e.g. 4 ranks per node, or a
 *     group whose nodes hold different counts (A :2324-2358: no table is
 *     set, region_get_coll_info returns at once);
 *   - where no applicable polygon contains the point;
 *   - on any other instance (no region tuner: A nccl_ofi_tuner.cpp:79-84).
 * PAT: the p5en and p6-b200 tables for 1 rank per node force PAT/Simple for
 * all-gather and reduce-scatter over most small and mid sizes (and, on
 * p5en, at every size from about 128 ranks up). PAT (NCCL's log-distance
 * all-gather and reduce-scatter, enabled only for one GPU per node, N =
 * NVIDIA/nccl 5067397c src/graph/tuning.cc:215-223) is modelled in both of
 * podsim's models (coll.c "PAT", sim/topo/coll.c), so net_efa_region
 * returns it where the group has one rank per node. The plugin's channel
 * and chunk tuning for p6's Tree/LL128 and PAT and p5en's Tree/LL128 and PAT
 * all-gather at 1 rank per node (A :2135-2155, :2276-2305) changes no
 * algorithm or protocol; podsim does not model channel counts or chunk
 * sizes and leaves it out.
 *
 * The point test: the point is (log2 bytes, log2 ranks), byte count 0
 * mapped to 1e-6 as in the plugin's log2 transform (A include/tuner/
 * nccl_ofi_tuner_region.h). A point on an edge is inside (the plugin's
 * distance test, A :159-172); else the even-odd rule on a horizontal ray.
 * The plugin casts its ray toward (200 GiB, 2^21) instead; the parity of
 * crossings of a closed polygon is the same for any ray from a point off
 * its boundary, so both give the same answer, the plugin's degenerate
 * regions (three vertices on one line, zero area: a segment such as
 * p5/p5e's NVLSTree/Simple along 16 ranks from 30 MiB + 1 byte) included,
 * which contain only their boundary.
 */
#include "net_int.h"

#include <math.h>

static double lg(double x)
{
	return log2(x > 0 ? x : 1e-6);
}

/* Is (x, y) on the segment a-b (log2 plane, tolerance eps)? */
static bool on_edge(double x, double y, double ax, double ay, double bx, double by)
{
	const double eps = 1e-9;
	double cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
	double len = hypot(bx - ax, by - ay);
	if (fabs(cross) > eps * (len > 1 ? len : 1))
		return false;
	return x >= fmin(ax, bx) - eps && x <= fmax(ax, bx) + eps && y >= fmin(ay, by) - eps &&
	       y <= fmax(ay, by) + eps;
}

static bool inside(const efa_region *r, double x, double y)
{
	bool in = false;
	for (int i = 0, j = r->n - 1; i < r->n; j = i++) {
		double ax = lg(r->v[j].bytes), ay = lg(r->v[j].ranks);
		double bx = lg(r->v[i].bytes), by = lg(r->v[i].ranks);
		if (on_edge(x, y, ax, ay, bx, by))
			return true;
		if ((ay > y) != (by > y) && x < ax + (y - ay) * (bx - ax) / (by - ay))
			in = !in;
	}
	return in;
}

int net_efa_regions(net_ec2 ec2, net_coll coll, int per_node, double bytes, double ranks,
		    net_algo *a, net_proto *p, int max)
{
	if (ec2 == NET_EC2_P5E)
		ec2 = NET_EC2_P5; /* one table for both (A :2347-2348) */
	int nt, n = 0;
	const efa_table *t = net_efa_tables(&nt);
	double x = lg(bytes), y = lg(ranks);
	for (int k = 0; k < nt; k++) {
		if (t[k].ec2 != ec2 || t[k].coll != coll || t[k].per_node != per_node)
			continue;
		for (int i = 0; i < t[k].n && n < max; i++)
			if (inside(&t[k].r[i], x, y)) {
				a[n] = t[k].r[i].algo;
				p[n++] = t[k].r[i].proto;
			}
	}
	return n;
}

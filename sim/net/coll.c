/* coll.c - the cost of one collective: NCCL's algorithms with alpha-beta costs
 * and NCCL's own latency model (net.h). Units: seconds, bytes, bytes/s.
 *
 * Notation: n ranks in the group, k of them per node, m nodes, S bytes (the
 * full buffer as nccl-tests counts it), G GPUs per node.
 *
 * Bandwidth (the beta part). The bus bandwidth a rank sustains is
 *     B_intra = intra_bw * intra_efficiency                       if k > 1
 *     B_nic   = k/G * nics * nic_bw * nic_efficiency / oversub    if m > 1
 *     busbw   = min of those that apply
 * Across nodes (m > 1) a ring's (and a tree's) path through a node is a chain
 * of k ranks: it enters at one rank from a NIC, takes k - 1 scale-up hops and
 * leaves from the last rank through a NIC. NCCL starts each channel's
 * search at a NIC, taking the node's NICs in turn, and tries that NIC's
 * local GPU first, then the NIC's other local GPUs (ncclTopoSearchRecNet,
 * nets[(nChannels + i) % netCount], net.localGpu, N src/graph/search.cc:
 * 724-800), so the channels' chains begin and end at different GPUs. The
 * flow model builds k channels, the c-th entering each node at its c-th
 * rank and leaving from rank c xor 1 through the entry rank's NIC
 * (sim/topo/coll.c): every rank ends one chain in k and sends (k - 1)/k of
 * its bytes over the scale-up links, the rest over the NICs B_nic counts:
 *     B_intra = intra_bw * intra_efficiency * k/(k - 1)          if m > 1
 * the same split (the two models agree on such rings and trees). Not on a
 * PCIe node, whose NIC hop crosses the same switch uplinks as its GPU hops,
 * nor for all-to-all (its own split).
 * On a PCIe node (intra = pcie) B_intra is also bounded by the switch
 * uplinks (pcie_bw each, at intra_efficiency, as the graph's links): with
 * s = gpus_per_pcie_switch and the k ranks filling switches in order,
 *   P2P:      a ring inside one switch never leaves it; a ring over several
 *             switches crosses each uplink once per direction:
 *             B_intra = eff * min(intra_bw, pcie_bw)
 *   no P2P:   every hop goes up the sender's uplink into host memory and down
 *             the receiver's, so an uplink carries the hops of its min(s, k)
 *             GPUs in each direction: B_intra = eff * min(intra_bw,
 *             pcie_bw / min(s, k))
 * The NIC share assumes every GPU of the node communicates at once (the other
 * G/k groups of the node run the same collective), so the k ranks of this group
 * get k/G of the node's NICs. Per algorithm, with nccl-tests' bus-bandwidth
 * factors (a rank sends f*S bytes in total):
 *     all-reduce (ring: reduce-scatter then all-gather)  f = 2(n-1)/n
 *     all-gather, reduce-scatter (ring)                   f = (n-1)/n
 *     broadcast (pipelined ring: every byte crosses each ring hop once, so
 *       the time is S / busbw; nccl-tests' busbw = algbw)  time factor 1,
 *       average bytes sent per rank (n-1)/n * S (the last rank forwards none)
 *     all-to-all (pairwise exchange, all pairs in flight): a rank sends
 *       (k-1)/n * S inside its node and (n-k)/n * S through the NICs, so
 *       t = max((k-1)/n * S / B_intra, (n-k)/n * S / B_nic); with k = n or
 *       k = 1 this is (n-1)/n * S over the one bottleneck
 *     p2p (one message of S): S / B_intra inside a node; across nodes one NIC
 *       flow, B = min(1, nics/G) * nic_bw * nic_efficiency / oversub (all G
 *       GPUs of a stage send at once; NCCL cannot stripe one peer pair over
 *       several NICs, hardware.md 8a, S23)
 * The ring's local step (ring_local_bw, net_ring_local_time; N = NVIDIA/nccl
 * 5067397c). One thread block per channel runs a loop's primitives one after
 * the other: all-reduce a directSend, n-2 directRecvReduceDirectSend, a
 * directRecvReduceCopyDirectSend, n-2 directRecvCopyDirectSend and a
 * directRecv (N src/device/all_reduce.h:40-82); all-gather and
 * reduce-scatter n primitives (all_gather.h:55-74, reduce_scatter.h:42-54).
 * 2(n-1) of all-reduce's 2n-1 (n-1 of the others' n) move a chunk over the
 * scale-up links; one moves none. Between Ampere GPUs on NVLink NCCL reads
 * (P2P read, N src/graph/paths.cc:414-418) and the Simple protocol's buffer
 * sits on the sender (N src/transport/p2p.cc:548-551), so the first send
 * copies the chunk from the user's buffer into the rank's own buffer, which
 * the next rank reads over NVLink; the block's links idle meanwhile. (With
 * P2P write the last receive copies the chunk from the buffer into the
 * output instead, unless the sender wrote there directly: NCCL 2.16 did so
 * inside one process, v2.16.5-1 src/collectives/device/prims_simple.h:
 * 185-196, and allowed direct reads only on registered buffers, :339-341.)
 * With C channels each of link rate b and local rate l, B = C b and
 * L = C l = ring_local_bw, a loop moves n chunks of every channel and takes
 * s chunk/b + chunk/l, s = 2(n-1) (all-reduce) or n-1:
 *     t_bw = f S / B + S / (n L),   busbw = B / (1 + B / (s L)),
 * f the time factor above. A small group pays the local step over fewer
 * link steps: on a DGX A100 (B = 0.792 x 300 = 238 GB/s, L = 515 GB/s)
 * busbw 193 GB/s with 2 GPUs, 221 with 4, 230 with 8 before latency and
 * coll_overhead (with them 191, 218, 227 at 1 GiB against the vTrain
 * tables' 197, 222, 229: microbench.csv LUT-A100-G*-1024). NCCL's
 * graph does not depend on the group size there: every GPU reaches the
 * NVSwitch over 12 links of 20 GB/s in NCCL's model (src/graph/topo.h:21),
 * the search packs 6 rings of 40 GB/s and doubles them to 12 channels of 20
 * (search.cc:1036-1048, 1051, 1198) for any n, so B = 12 channels and the
 * tuner's ring busbw, 12 x 20 = 240 GB/s (tuning.cc:324), are the same for
 * 2 and 8 GPUs; the fitted B is close to it. Fitted to the 1,799 rows of
 * the A100 tables with coll_overhead (MAPE 5.0 -> 1.4 %; each group size
 * left out of the fit and predicted: 1.3-3.2 %, README "Validation"). Only
 * inside one node (across nodes the NICs set the ring's pace, the network
 * proxy staging the chunks; assumed hidden) and for the ring's all-reduce,
 * all-gather and reduce-scatter (broadcast pipelines its chunks across the
 * ranks, each doing one primitive per chunk; the tree is not charged).
 * NVLink nodes only (P2P read is NCCL's choice on NVLink paths; over PCIe
 * the ring is link bound at a tenth of the rate). Nodes without a measured
 * table of small groups leave ring_local_bw 0:
 * the V100 tables (DGX-1, P2P write) show none, as direct writes inside
 * one process would give; H100 (P2P write) has no such table yet.
 * Ring traffic leaves a node once per ring pass per node, so of the f*S bytes a
 * rank sends, a share 1/k goes through the NICs when m > 1 (inter_bytes) and the
 * rest over the scale-up port (intra_bytes).
 * Fabric uplinks (fabric_bytes). A leaf of a fat tree with oversubscription o
 * has N/o uplinks for the N NICs below it (sim/topo/fabric.c), and the closed
 * forms price every transfer between nodes at 1/o of the NIC rate (B_nic,
 * rank_nic_bw), as if each NIC's traffic climbed to the spines over its 1/o
 * share of an uplink: one uplink carries o NICs' bytes,
 *     fabric_bytes = o * inter_bytes * G / N
 * (G/N: the ranks whose traffic one NIC carries, build_nic_share's count).
 * The flow model reports its busiest fabric link instead; the two agree
 * where every flow between nodes leaves its leaf (a node per leaf, or each
 * group spread over leaves); the closed form, blind to placement, counts
 * the traffic between nodes of one leaf as climbing too.
 *
 * Latency (the alpha part), NCCL's tuning model (src/graph/tuning.cc, NCCL
 * ~2.20-2.21; reference/hardware.md section 13, source S27):
 *     lat = base[p] + (nsteps - ninter) * intra[p] + ninter * inter[p]
 * nsteps = 2(n-1) for all-reduce, n-1 for the other ring collectives; ninter =
 * the steps whose hop crosses a node boundary. A ring of n ranks over m nodes
 * has m boundary hops out of n, and a chunk travels n-1 hops per pass, so
 * ninter = m-1 per pass (2(m-1) for all-reduce; NCCL's code rounds this to 2m).
 * When m > 1 an intra step costs at least NCCL's per-step network overhead,
 * 1 us on Intel hosts (x3 for Simple), as in tuning.cc. A ring all-reduce,
 * all-gather or reduce-scatter of one rank per node (k = 1, m > 1) takes the
 * tree's network step, 5.0 / 8.5 / 14 us for LL / LL128 / Simple, in place
 * of the ring's 2.7 / 4.0 / 14 (NCCL 2.23 on: "With ppn=1 latencies are
 * fully exposed, use the Tree network latency", N tuning.cc:386-388, from
 * the release that brought PAT, 2.23.4-1; net_ring_latency): the ring's LL
 * latency on 64 nodes is then 6.6 + 63 x 5.0 = 321.6 us, not 176.7, which
 * is what lets PAT (below) win at small sizes. Broadcast's ring keeps the
 * ring's step (NCCL times it apart, :395-402). All-to-all and p2p run
 * as one round of concurrent sends: base + one intra step (k > 1) + one inter
 * step (m > 1) (assumed; NCCL groups the p2p operations into one launch).
 * The switch_latency of [cluster] is not added: NCCL's network step latency
 * already includes the fabric; it is for the flow-level model.
 *
 * Algorithms for all-reduce besides the ring (NCCL's tuner picks the lowest
 * time of its own table, tune.c; [cluster] nccl_algo forces one where it
 * applies):
 *   tree (double binary tree over the nodes, a chain inside each; k ranks on
 *     each of m nodes, every node holding k of the group). What NCCL runs
 *     (N = NVIDIA/nccl 5067397c):
 *     Channels. The tree graph's nCh channels (as many as the ring's, N
 *       src/init.cc:1185, 1459; tune.c derives nCh), each a chain through
 *       the node's k GPUs in the graph's order (up = the previous GPU, down
 *       = the next, N src/graph/connect.cc:44-62), whose first GPUs hold
 *       the network edges (the balanced tree: the parent's and child 1's
 *       on index 0, child 0's on index 1, :53-58). The runtime doubles the
 *       channels:
 *       channel c runs tree 0, channel c + nCh its mirror tree 1 (connect.cc:
 *       148-166, 460; the mirror p -> m-1-p for even m, src/graph/trees.cc:
 *       70-107), so each tree carries S/2.
 *     Per channel. One thread block, split into a reduce-up group (Simple:
 *       256 + 64 of 512 threads; LL, LL128: 70 %) and a broadcast-down group
 *       running at once over the same chunks (N src/device/all_reduce.h:
 *       146-229, runTreeSplit; runTreeUpDown, one after the other, only
 *       under CUDA 11.2-11.3 on SM80, :237-243): a GPU receives its child's
 *       partial, adds its own and sends it up (directRecvReduceDirectSend)
 *       while it receives the result from its parent and sends it down
 *       (directRecvCopyDirectSend); the root does both in one primitive
 *       (:166-174).
 *     Bytes inside a node. A chain's k-1 hops carry every chunk up and
 *       down, 2(k-1) S_c per channel (the head sends down only, its up
 *       goes to the NIC; the tail sends up only); with the chains' ends
 *       spread over the GPUs (assumed: one head per NIC), each GPU's
 *       scale-up port carries 2(k-1)/k S out (and in), at once: t_in =
 *       2(k-1)/k S / B_intra (8 GPUs: 1.75 S).
 *     Bytes between nodes, m = 2. Each tree has one edge between the nodes;
 *       of every chunk the child node sends its partial up and receives the
 *       sum down, and with the mirror each node is child of half the
 *       channels and root of the other half: a node sends S and receives S
 *       through its k/G share of the NICs, t_net = S / B_nic (the ring's
 *       2(n-1)/n S). NCCL's table says as much: on two nodes it takes the
 *       graph's bwIntra, raised by the search up to 2 bwInter (tuning.cc:
 *       306; search.cc:1278-1281), in place of bwInter.
 *     m > 2. A node inner in one tree (up S/2, down 2 x S/2) and a leaf in
 *       the other (up S/2) sends 2 S: t_net = 2 S / B_nic, the ring's x
 *       n/(n-1); podsim keeps t_links = 2 S / busbw with the ring's links
 *       (the chain, 2(k-1)/k S per GPU, binds only on slow scale-up links).
 *     Per-channel ceiling. NCCL's table caps the tree all-reduce's bus
 *       bandwidth at nCh perChMaxTreeBw (Ampere 24.0 / 23.6 / 17.8 GB/s per
 *       channel on 1 / 2 / more nodes, tuning.cc:198-204, 330-331), LL128
 *       at 120/128 of that and nCh perChMaxTreeLL128Bw, LL at 1/3.8 of it
 *       and llMaxBw (:332-335), half of it as algorithm bandwidth (:378-381):
 *       NCCL's own figure for what one channel's split thread block moves.
 *       podsim takes it as a floor on the data time, t_cap[p] = S / (0.5
 *       C_p) (net_tree_cap_time), in both models.
 *     So t_bw[p] = max(t_links / (0.92 x protocol factor), t_cap[p]), with
 *     t_links = max(t_in, t_net) on two nodes; the 0.92 and the protocol
 *     factors (net_tree_proto_bw, tuning.cc:331-335) on the links only, as
 *     NCCL applies them. Latency from the tree's own constants, nsteps =
 *     2((k-1) + ceil(log2 m)), ninter = 2 ceil(log2 m).
 *     2 DGX A100 (8 HDR NICs, B_intra 237.6 GB/s), 16 ranks: t_net = S /
 *     192 GB/s, t_in = S / 135.8, links / 0.92 = S / 124.9; the ceiling, 8
 *     channels of 24 GB/s (tune.c) x 23.6 x 0.5 = 94.4 GB/s, binds: t_bw
 *     = S / 94.4 GB/s, busbw 175 GB/s at 1 GiB with latency (the old 2 S /
 *     (0.92 x 192) gave 164; the links alone, busbw 1.875 x 124.9 = 234,
 *     are what an earlier try found ~22 % above S25). NCCL's table
 *     predicts the same 94.4 GB/s for the tree against the ring's 102.4
 *     and runs the ring from 16 MiB up: podsim's 189 GB/s against S25's
 *     192 (hardware.csv efficiency,NCCL all-reduce busbw DGX A100 2 nodes,
 *     inter_node_8xHDR).
 *     3-8 nodes: the ceiling, 8 x 17.8 x 0.5 = 71.2 GB/s, binds below the
 *     links' 0.92 x 192 / 2 = 88.3: busbw ~135 GB/s at 1 GiB (old ~165);
 *     NCCL's table sees the same ceiling and runs the ring at large sizes.
 *     Not modelled: NCCL's x0.85 for a tree graph that fell back to the
 *     plain TREE pattern (tuning.cc:336; a search outcome, SM90 on). The
 *     flow model's tree (sim/topo) runs these flows, with the ring bound
 *     beyond two nodes and the same ceiling.
 *   hier (m > 1, k > 1; not one of NCCL's own algorithms, so used only
 *     when forced): an intra-node ring reduce-scatter and all-gather,
 *     2(k-1)/k S at B_intra, and between them k inter-node ring all-reduces
 *     of S/k, local rank j over its own NIC share, 2(m-1)/(k m) S at
 *     B_rank = min(1, nics/G) nic_bw nic_efficiency / oversub:
 *       t_bw = 2(k-1)/k S / B_intra + 2(m-1)/(k m) S / B_rank,
 *     latency with nsteps = 2(k-1) + 2(m-1), ninter = 2(m-1), as the ring's.
 *   nvls: net_nvls_allreduce (below).
 *
 *   nvlstree (m > 1, k > 1, NVSwitch nodes with nvls_busbw; NCCL's
 *     NVLSTree): NVLS inside every node, a tree between the nodes (one per
 *     local rank, over that rank's NIC share). NCCL's tuning model
 *     (N = NVIDIA/nccl 5067397c, src/graph/tuning.cc:307-323) bounds its
 *     bus bandwidth by the node's NVLS rate and by the network, twice the
 *     network on two nodes (a tree of two nodes sends every rank's shard
 *     S/k once each way, t = S / B_nic, i.e. busbw 2(n-1)/n B_nic; an inner
 *     node of a larger tree sends it to its parent and its children):
 *       busbw = min(nvls_busbw, B_port k/(k+1) 2(n-1)/n,
 *                   (m <= 2 ? 2(n-1)/n : 1) B_nic)
 *     (B_port: the NVLS port bound of net_nvls_allreduce), t_bw = 2(n-1)/n
 *     S / busbw; latency NVLS's plus 2 floor(log2 m) network steps of 20.9
 *     us (N tuning.cc:172-174, NVLSTree Simple) and, on EFA, the EFA terms
 *     below; Simple only.
 *
 * PAT (NCCL's Parallel Aggregated Trees, 2.23 on: N = NVIDIA/nccl
 * 5067397c; all-gather and reduce-scatter, Simple only, one rank per node).
 *   Enabled (N src/graph/tuning.cc:215-223, 295-304): nNodes == nRanks (one
 *     GPU per node), no network device offload, SM 6.0 or later, protocol
 *     Simple, collectives all-gather and reduce-scatter (not all-reduce);
 *     NCCL also skips it for a reduce-scatter whose op pre-multiplies or
 *     divides (N src/enqueue.cc:2010-2012, averaging), which podsim does not
 *     see (its reduce-scatters are sums). net_pat_ok.
 *   Schedule (N src/include/collectives.h:442-922, PatRSAlgorithm and
 *     PatAGAlgorithm; peers N src/transport/generic.cc:69-81): rank r has
 *     one connection per dimension d, to r + 2^d and r - 2^d (mod n), d <
 *     ceil(log2 n). All-gather: the piece of the rank at offset s (1 <= s
 *     < n) reaches r over the binomial tree of s's bits, highest first, its
 *     last hop over dimension lowbit(s) (phase 1: sendDim = firstBitSet(s),
 *     recvDim = the next set bit); so each rank receives (and sends) every
 *     piece once, and dimension d carries c_d = #{1 <= s < n : lowbit(s) =
 *     d} pieces of S/n per rank (n/2^(d+1) for n a power of 2: half the
 *     data to the nearest peer). Reduce-scatter runs the transposed trees
 *     (receive-reduce for copy), the same bytes per dimension the other
 *     way. Per rank (n-1)/n S, as the ring; the pieces stream through
 *     NCCL_STEPS slots per peer in chunks, small pieces aggregated into one
 *     network post (aggFactor), so every dimension's connection is busy at
 *     once (the flow model's PAT, sim/topo/coll.c, runs them as one phase).
 *   Bandwidth (tuning.cc:306, 337, 376-382): the tree graph's bandwidth (the
 *     PAT slot of graphs[] is the tree's, N src/init.cc:980-981; podsim's
 *     tree bound is the links' busbw, B_link above), x 0.75, and no
 *     bus-to-algorithm conversion (only the ring's AG/RS get n/(n-1)), and
 *     NCCL's time is lat + S / bw (tuning.cc:653, nBytes = the whole
 *     buffer, N src/enqueue.cc:2127), so
 *         t_bw = S / (0.75 B_link),
 *     4/3 n/(n-1) of the ring's (n-1)/n S / B_link: on bandwidth the ring
 *     wins, PAT only where its latency does.
 *   Latency (tuning.cc:154, 171, 387-391, 429-433; log2i = floor log2):
 *         lat = 8.0 us + n x 2.8 us + floor(log2 n) x L_net / 3.5,
 *     L_net = the tree's network Simple latency 14 us (with one rank per
 *     node NCCL takes the tree's, :387-388) + the net plugin's latency
 *     twice (Simple's flush): on EFA podsim's inter step (L, kappa) as the
 *     ring's; and EFA's message cost o for n-1 steps (one post per piece
 *     for pieces of a slot or more, as the ring's n-1; aggregation makes
 *     it fewer for small pieces, not modelled). 16 nodes: 8 + 44.8 + 4 x
 *     14 / 3.5 = 68.8 us against the ring's Simple 8.4 + 15 x 14 = 218.4
 *     us and LL 6.6 + 15 x 5.0 = 81.6 us (one rank per node: the tree's
 *     network step, above).
 *
 * SHARP ([cluster] sharp: NCCL_COLLNET_ENABLE=1 with the SHARP CollNet
 * plugin on an InfiniBand fabric whose switches reduce; N = NVIDIA/nccl
 * 5067397c). The switches of the fat tree add the nodes' contributions as
 * they climb a reduction tree and send the sum back down, so a node sends
 * its data up once and receives the result once: no (n-1)/n halving of the
 * network's bus bandwidth as in a ring, whose every byte crosses the NICs
 * twice. NCCL runs it as three algorithms:
 *   Enabled (N src/init.cc:63, 1164-1166, 1452, 1469-1475; src/graph/
 *     tuning.cc:503-509; src/enqueue.cc:1998-2008): NCCL_COLLNET_ENABLE=1
 *     and a CollNet plugin loaded (collNetSupport, src/include/coll_net.h:
 *     87-89), at least NCCL_COLLNET_NODE_THRESHOLD = 2 nodes (init.cc:857),
 *     at most NCCL_MAX_DIRECT_ARITY + 1 = 8 local ranks for both CollNet
 *     algorithms (enqueue.cc:1999-2003, src/include/device.h:199);
 *     CollNetDirect only on NVSwitch systems (tuning.cc:508-509); NVLS
 *     across nodes only with CollNet (tuning.cc:504-506, enqueue.cc:2008);
 *     Simple only (tuning.cc:301, 338-339); the reduction op and type the
 *     plugin supports (collNetSupportMatrix, enqueue.cc:1960-1976: sums of
 *     the usual types, assumed here). net_sharp_ok also wants the same k
 *     ranks on every node (NCCL's heads are per node).
 *   All-gather and reduce-scatter (sharp_pick): CollNetDirect (not Chain,
 *     tuning.cc:295-297) where the plugin has iallgather / ireducescatter
 *     (the SHARP plugin does, unless NCCL_SHARP_DISABLE_AG / _RS: M =
 *     Mellanox/nccl-rdma-sharp-plugins 2f5ac02e, src/sharp_plugin.c:
 *     252-261, 639-700, 702-) and every local rank is a head with a NIC of its
 *     own (tuning.cc:351-373: k <= nics here). NVLS across nodes for them
 *     (the same conditions) is not modelled.
 *     Traffic (N src/device/all_gather.h:415-520, reduce_scatter.h:363-520):
 *     all-gather: each head sends its own S/n to the network, which gathers
 *     its rail, the same local rank of every node, S/k, back to it; the
 *     head copies that to the other k-1 ranks over NVLink ((k-1)/k S out,
 *     as much in); reduce-scatter the transpose (the parts for the other
 *     heads over NVLink, the rail's S/k up, its S/n down). NCCL's model
 *     (tuning.cc:340-342, no bus-to-algorithm conversion, :376-377):
 *     busBw = ppn min(bwIntra, 0.9 bwInter), t = S / busBw; podsim:
 *         t_bw = max((k-1)/k S / B_intra, S / B_sharp) / 0.9.
 *   Traffic per GPU (N src/device/all_reduce.h; k ranks per node, S bytes):
 *     collnetdirect (:247-387): every rank scatters its buffer over the
 *       node's k heads (directSend of S/k to each other rank: (k-1)/k S out
 *       over NVLink), each head reduces the k parts of its shard and sends
 *       S/k to the network (recvReduceDirectSend to direct->out), receives
 *       the switch's sum, S/k, and copies it to the other ranks
 *       (directRecvCopyDirectSend: (k-1)/k S out); so per rank 2(k-1)/k S
 *       each way over the scale-up port and S/k each way through its NIC;
 *     collnetchain (:637-760): a chain through the node's ranks per channel
 *       reduces up (directRecvReduceDirectSend), the chain's head sends to
 *       the network and the sum comes back down the chain; the channels'
 *       heads differ, so per rank the same bytes as Direct: 2(k-1)/k S each
 *       way over NVLink, S/k each way through the NIC;
 *     nvls across nodes (:389-524, the multi-node branch :458-523): NVLS scatter and gather inside the node
 *       (the one-node NVLS port load (k+1)/k S each way, net_nvls_allreduce)
 *       with each head sending its reduced shard S/k to the network and
 *       multicasting the network's sum: S/k each way through its NIC.
 *   The node's k ranks thus push S through their NICs each way, at
 *       B_sharp = k/G x nics x nic_bw x nic_efficiency (net_sharp_nic_bw),
 *     the group's NIC share, not divided by the oversubscription: above the
 *     leaf each tree's data is one reduced stream, one uplink of the leaf
 *     carrying what one NIC carries. In-switch reduction runs at line rate
 *     (SHARPv2 on: streaming aggregation; assumed).
 *   Data time (the links' real traffic, as the flow model's flows carry it):
 *     collnet:  t_bw = max(2(k-1)/k S / B_intra, S / B_sharp) / e,
 *       e = 0.85 for CollNetDirect on Hopper and later (tuning.cc:340-347,
 *       podsim: NVSwitch nodes with nvls_busbw), else 1; NCCL's GPU/NIC
 *       factor (tuning.cc:343-345) is B_sharp's k/G x nics here. NCCL's
 *       own model gives the same form: CollNet takes the graph's bwIntra
 *       across nodes (tuning.cc:305-306), whose search raises it to at most
 *       twice bwInter (src/graph/search.cc:1279-1282), and converts with
 *       ratio 0.5 (tuning.cc:376-382): algbw = min(bwIntra/2, bwInter) x
 *       channels, i.e. t = max(2 S / B_intra, S / B_net); podsim keeps the
 *       links' (k-1)/k, as the flows do;
 *     nvls:     busbw = min(nvls_busbw, B_port k/(k+1) 2(n-1)/n,
 *                           2(n-1)/n B_sharp), t_bw = 2(n-1)/n S / busbw
 *       (NCCL's tuning.cc:307-323 bounds NVLS by the node's NVLS rate and
 *       by the graph's bwInter x channels, about the node's NIC rate, as
 *       bus bandwidth, then converts with n / (2(n-1)): a network term of
 *       2 S / B_sharp, twice what the links carry (S/k per NIC each way);
 *       podsim times the links, S / B_sharp, and picks by its own times,
 *       as for every algorithm; NCCL's graph bandwidths are not modelled,
 *       so whether its tuner, on the same machine, would rank NVLS below
 *       CollNet for this is not checked).
 *   Latency (tuning.cc:160-161, 172-173, 384-391, 418-426; Simple, the
 *     plugin's latencyInter 0 on InfiniBand), in us:
 *     collnetdirect: 2 (min(1, k-1) 3.7 + (k-1) 0.4) + L_net, L_net = 31
 *       (14, the tree's, with one rank per node: :386-388);
 *     collnetchain:  2 (k-1) 2.8 + L_net, L_net = 30 (14 at k = 1);
 *     nvls:          25 + 18 (NVLink NVLS, then the network's; base 0).
 *     8 ranks per node: 44.0, 69.2 and 43 us.
 *   Analytic: DGX H100 (intra 450 GB/s x 0.822 = 369.9 GB/s, 8 NDR NICs
 *     at 0.94: B_sharp = 8 x 47 = 376 GB/s, nvls_busbw 480), 1 GiB on 16
 *     nodes (n = 128): CollNet's NVLink term 1.75 S / 369.9 GB/s = S /
 *     211.4 GB/s binds (S / B_sharp = S / 376): busbw 2 x 127/128 x 211.4
 *     = 419.5 GB/s (Direct x 0.85 = 356.6); NVLS: min(480, 369.9 x 8/9 x
 *     1.98 = 652, 1.98 x 376 = 746) = 480 GB/s; against the ring's
 *     min(369.9, 376) = 369.9. One rank per node (k = 1): the ring's busbw
 *     is one NIC's 47 GB/s, CollNetChain's 2 (n-1)/n x 47 (tests/unit/
 *     test_net.c test_sharp has the figures).
 *   Not modelled: the limited number of SHARP trees and streaming
 *     aggregation resources per switch (every communicator is assumed to
 *     get its own), SHARPv1's small-message-only aggregation (EDR), and
 *     NCCL's graph search of the CollNet channels.
 *
 * Protocols: LL moves 8-byte lines of 4 data bytes and 4 flag bytes (factor
 * 0.5 of busbw); LL128 moves 120 data bytes per 128-byte line, which NCCL's
 * tuning model rates at 0.92 of busbw (assumed from tuning.cc; not in
 * hardware.csv); Simple runs at busbw. LL128 is used only on NVLink nodes, as
 * NCCL enables it by default only there. The protocol is NCCL's pick by its
 * own table (tune.c), whose protocol factors are these and its caps.
 *
 * Which algorithm NCCL runs (net_nccl_choice; N = NVIDIA/nccl 5067397c).
 * NCCL decides by its model, never by measuring: ncclGetAlgoInfo (N src/
 * enqueue.cc:2123-2151) fills a table of predicted times per algorithm and
 * protocol (updateCollCostTable, :1989-2026, each entry ncclTopoGetAlgoTime,
 * N src/graph/tuning.cc:630-657: latency + bytes / bandwidth, from the
 * latencies and bandwidths ncclTopoTuneModel derived once at init from the
 * topology graph's search, tuning.cc:243-), hands the table to a tuner
 * plugin where one is loaded (getCollInfo, enqueue.cc:2140-2149: on EFA
 * aws-ofi-nccl's region tuner, efa.c, which zeroes the cost of the pair it
 * forces), and takes the lowest entry (topoGetAlgoInfo, enqueue.cc:
 * 2028-2046). NCCL_ALGO and NCCL_PROTO only remove entries (their bandwidth
 * set to 0, tuning.cc:442-538). The kernel then runs that pair whatever
 * the fabric does to it: contention with other groups, ECMP collisions,
 * oversubscription are not in the table. podsim rebuilds that table in
 * tune.c (net_tune_pick, derived there): NCCL's constants per GPU
 * architecture (base and hardware latencies, llMaxBw, the per-channel
 * caps, NVLS efficiency), bandwidths of NCCL's graphs from the node's
 * nominal links (not podsim's fitted efficiencies, coll_overhead or ring
 * local step), the tree correction factors and the ring's Simple plateau
 * latency x1.4 of ncclTopoGetAlgoTime (tuning.cc:620-651), and its protocol
 * and algorithm enables; net_nccl_choice returns that pair (the closed
 * forms' lowest time only for all-to-all, p2p and a forced hier, which the
 * table has not), on EFA across nodes net_efa_choice (below, 6.-7.).
 * net_collective then times the pair with this file's closed forms, and
 * the flow model (sim/topo/coll.c) simulates it on the link graph: where
 * podsim's costs or the fabric make NCCL's pick slower than another
 * algorithm (the tree on two nodes, NVLS on two ranks, a tree whose edges
 * collide on a leaf's uplinks), both report the slower time, as the real
 * run would.
 *
 * The EFA model ([cluster] fabric = efa: NCCL over AWS EFA through the
 * aws-ofi-nccl plugin; A = aws/aws-ofi-nccl 2daf7d30, N as above; the
 * derivations are below and in README "Network"). A collective of a group spanning m > 1 nodes pays,
 * on top of NCCL's model (1., 2., 4. and 5. are the calibrated fabric's
 * terms on every fabric: `podsim calibrate --fabric` fits them to an
 * InfiniBand or RoCE cluster's own collectives as to EFA's; their keys
 * default to 0 and leave NCCL's model alone; 3., 6. and 7. are EFA's:
 *   1. the network latency L ([cluster] net_latency) on every inter-node
 *      step, twice with Simple: NCCL adds the net plugin's `latency`
 *      property to each network step, a second time for Simple's flush (N
 *      tuning.cc:386-391); aws-ofi-nccl reports 75 us on p4d/p5/p5e (A
 *      src/platform-aws.cpp:87,137). podsim's L is fitted to measured
 *      collectives (podsim calibrate --fabric): the effective per-step cost,
 *      which the 75 us tuning knob need not equal;
 *   2. a per-message cost o ([cluster] msg_overhead) on every step: once a
 *      rank's block per channel, S/(nC), is at most one slice (at 256 MiB
 *      from 2 nodes of 8 GPUs on), every ring step moves one network message
 *      per channel, posted and completed by the plugin's proxy, and the ring
 *      waits for it (N src/include/collectives.h:19-26, src/enqueue.cc:
 *      2343-2364): nsteps * o;
 *   3. rails: p5 gives each GPU one NCCL device of 4 EFA rails (32 EFA per
 *      node, A src/platform-aws.cpp:1064; speed = one rail x rails, A
 *      src/nccl_ofi_rdma.cpp:410-413). Messages of at least 128 KiB are
 *      striped over up to all rails, smaller ones go whole to one rail, the
 *      rails taken round-robin (A src/nccl_ofi_scheduler.cpp:47-117); with
 *      several channels and steps in flight every rail carries an equal
 *      share, so a GPU's network rate is its rails x the achievable rail
 *      rate ([cluster] rail_bw, which sets the node's nic_efficiency):
 *      B_nic above with nics = rails per node;
 *   4. congestion: the fabric is shared and measured collectives slow down
 *      with the node count beyond what 1-3 explain (the fastest runs follow
 *      1-3, the medians fall further). The network terms
 *      of a collective across m nodes, its latencies (NCCL's network step,
 *      L, o) and its rails' rate, are stretched by the median slowdown
 *          kappa(m) = 1 + congestion (m - 1)^congestion_exp,
 *      a fabric key (kappa = 1: the uncongested fabric). The shipped EFA
 *      fit holds it at 0 (tools/calibrate-all, since 2026-11-30): what the
 *      medians add to the fastest runs is one wait per call (5.), the same
 *      for calls whose bytes, steps and fastest times differ 2x, which a
 *      stretch of the call's own terms cannot give; with kappa the fit put
 *      a 3.2x stretch of the rails' rate at 64 nodes that a large call (a
 *      data-parallel reduction of gigabytes) would pay in full;
 *   5. synchronisation delay, per call (net_sync_delay). What the medians
 *      of the calibration rows (tests/cases/efa-collectives.csv) add to
 *      their fastest runs (the 95th percentile of bus bandwidth) is about
 *      the same time for all-gather and all-reduce at a node count: 0.24
 *      and 0.25 ms on 2 nodes, 0.87 and 1.05 on 4, 2.57 and 2.35 on 8,
 *      3.46 and 2.74 on 16, 5.48 and 6.09 on 32, 13.2 and 18.2 ms on 64
 *      (all-reduce first), although the all-reduce sends twice the bytes
 *      (ring, 4-8 nodes) or runs a tree (16-64) and its fastest run takes
 *      2.1x (4 nodes) to 0.5x (64 nodes) the all-gather's. A stretch of
 *      the call's own network terms (4.) grows with the call's time and
 *      cannot give both. A collective ends when its slowest rank does, and
 *      every rank waits for the others at each step: a node that falls
 *      behind (its proxy thread descheduled, a flow that met a congested
 *      link or waited for an SRD retransmission) holds the whole call back
 *      by its lag, once per call, whatever the call's length beyond it.
 *      The call's wait is the largest lag of its m nodes. The expected
 *      maximum of m draws of a lag whose tail falls as a power law of index
 *      a grows as m^(1/a); counted beyond one node (a call inside a node has
 *      no network lag),
 *          D(m) = sync_delay (m - 1)^congestion_exp,
 *      with kappa's exponent: both say how a call's exposure to the shared
 *      fabric grows with the nodes it spans. (In a trial fit a separate
 *      exponent took 0.64 against kappa's 0.90: the medians' MAPE 7.9 %
 *      against 8.2 %, but the left-out node counts' error 17.5 % against
 *      14.1 %: the data do not carry a second shape.) At the shipped fit
 *      (topologies/calib/efa-h100.ini, no kappa) D = 0.28 ms on 2 nodes,
 *      1.72 on 8, 13.2 on 64 (with kappa it was 0.24, 1.07 and 5.9, kappa
 *      carrying the rest of the 64-node medians). What the data hold per
 *      node count (podsim calibrate --fabric prints it, valid/fabric.c
 *      excess_by_nodes): one wait common to the three collectives, added
 *      to each fastest run, gives every median of 2-32 nodes within
 *      8.5 %, at 0.25, 1.01, 2.40, 2.92, 5.85 ms (15.6 on 64): a per-call
 *      wait, as here, but not smooth in m (x1.2 from 8 to 16 nodes, x2-4
 *      per doubling elsewhere), so the smooth law misses the 8-node
 *      all-gather and reduce-scatter (-18 %) and the 16-node all-gather
 *      (+11 %); no algorithm, protocol or channel choice changes for
 *      them between 8 and 16 nodes (README "NCCL over AWS EFA").
 *      Every call waits, whatever its size (since 2026-11-29). The
 *      calibration rows cannot say how the wait scales for small calls
 *      (each sends 31-63 MiB per rank through its NICs); what they say is
 *      that it does not scale with a large call's length (above: the same
 *      wait for the all-gather and the all-reduce at a node count, whose
 *      times differ 0.5-2.1x). Its two causes do not scale with bytes
 *      either: a node whose proxy thread or host falls behind holds back
 *      every ring or tree step after it, and the ranks reach each call at
 *      different times (each host issues its own kernels), so the last
 *      one sets its start; a small call meets both as a large one does.
 *      Until then podsim scaled D by 1 - exp(-b / 8 MiB), b the bytes a
 *      rank sends through its NICs (lag events met per byte, an
 *      assumption): that turned the wait into a cost per sequence, where
 *      issue 23's independent grid finds TP across nodes costing 120-700
 *      ms per micro-batch beyond its tokens with the cost per sequence
 *      within ~1.5x of podsim's (the Playbook's model shapes, README
 *      "Every call waits for its slowest node"). A NCCL group of calls
 *      waits once (plan_call_group_wait). A call that moves no bytes
 *      (none in a step) waits for nothing. Both models add D to the time
 *      of the pair NCCL picked (6.: NCCL does not see it).
 *      Caveat: part of D may be the benchmark's. Scripts of the kind the
 *      rows cite (huggingface/bench_cluster f55b5e5, bench_cluster/
 *      communication/all_gather.py:18-31, utils.py:81-83) record the start
 *      on rank 0's stream after a barrier and average `trials` (default 3)
 *      back-to-back calls, so the ranks' skew leaving the barrier is
 *      charged to the calls; a training step's calls wait for their
 *      slowest rank as well, but not for that barrier;
 *   6. NCCL's choice (net_efa_choice): the region tuner (7.) first, else
 *      NCCL's own table (tune.c, net_tune_pick) with the plugin's reported
 *      latency on every network step (twice with Simple, N tuning.cc:
 *      389-391: 75 us on p5/p5e, 35 us on p5en and p6-b200,
 *      net_efa_tuner_latency) and one NCCL device per GPU, its rails
 *      aggregated (3.), not podsim's fitted L, o, kappa or D; the closed
 *      forms on that view where the table has no entry (all-to-all, p2p).
 *      Both models time the pair with the fitted costs. An all-gather of
 *      256 MiB on 2 p5 nodes runs the ring with Simple: NCCL's table caps
 *      LL128 at 36.7 GB/s per channel (8 channels of 48 GB/s), 898.7 against
 *      976.7 us in its view (test_net test_efa_choice);
 *   7. algorithm choice: no NVLS or SHARP across nodes (no CollNet on EFA);
 *      all-gather and reduce-scatter ring, or PAT with one GPU per node
 *      (above); all-reduce ring, tree or nvlstree. Across more than 2 nodes the plugin's region tuner
 *      decides first (net_efa_region, efa.c) where the node's platform
 *      ([node] ec2_instance) has a table for the collective and the
 *      group's ranks per node: p5/p5e 8, 2 and 1, p5en and p6-b200 8 and
 *      1; for all-gather and reduce-scatter it forces the ring's protocol
 *      or PAT (p5en and p6-b200 at 1 rank per node). Not with nccl_algo or
 *      nccl_proto forced (the plugin then defers to NCCL).
 * With L = o = D = 0, kappa = 1 and rail_bw = nic_bw x nic_efficiency it is
 * the plain model above, but for 6. (NCCL's own latency of 75 us).
 */
#include "net_int.h"

#include <math.h>

/* S27, in seconds: ring base latency per collective and per-step hardware
 * latency, indexed [LL, LL128, Simple]. */
static const double base_lat[NET_PROTO_COUNT] = {6.6e-6, 14.0e-6, 8.4e-6};
static const double nvlink_step[NET_PROTO_COUNT] = {0.6e-6, 1.9e-6, 3.4e-6};
static const double pcie_step[NET_PROTO_COUNT] = {1.0e-6, 2.5e-6, 5.7e-6};
static const double net_step[NET_PROTO_COUNT] = {2.7e-6, 4.0e-6, 14.0e-6};
/* S27: CPU overhead per network step (Intel hosts), x3 for Simple. */
static const double net_overhead[NET_PROTO_COUNT] = {1.0e-6, 1.0e-6, 3.0e-6};
/* The tree's network step NCCL 2.23 on gives a ring of one rank per node
 * (N tuning.cc:171, 386-388: hwLatencies NET Tree LL/LL128/Simple). */
static const double ppn1_net_step[NET_PROTO_COUNT] = {5.0e-6, 8.5e-6, 14.0e-6};
/* Fraction of busbw each protocol delivers (see the header comment). */
static const double proto_bw[NET_PROTO_COUNT] = {0.5, 0.92, 1.0};

/* NCCL's tuning model for the double binary tree (tuning.cc, S27):
 *   latency per protocol LL / LL128 / Simple, in us:
 *     base            6.8 / 14.0 / 8.4  (hardware.csv latency,NCCL model
 *                                        (~2.20-2.21 tuning.cc),base_lat_ring: note "tree")
 *     per NVLink step 0.6 / 1.25 / 4.0  (...,hw_lat_nvlink_ring: note "tree")
 *     per net step    5.0 / 8.5 / 14    (...,hw_lat_net_ring: note "tree")
 *     Simple's three as NCCL 2.23 set them (N tuning.cc:150, 157, 171 at
 *     5067397c; 2.23.4-1, 68b54236: 0 / 28 / 28 in 2.20-2.21, the rows of
 *     hardware.csv), the release whose PAT and one-rank-per-node ring
 *     latency (below) podsim models, so the tuner weighs the three
 *     algorithms with one NCCL's constants; no validation row moves
 *     (microbench, calibration, EFA: identical);
 *     PCIe steps use the NVLink tree values (NCCL's PCIe tree row
 *     1.0 / 1.9 / 4.0 is close; hardware.md section 13);
 *   bandwidth: busBw x 0.92 for tree all-reduce and the protocol caps LL
 *   1/3.8, LL128 120/128 across nodes (7/9 inside one), Simple 1
 *   (tuning.cc "model refinements", S27; not in hardware.csv). */
static const double tree_base_us[NET_PROTO_COUNT] = {6.8, 14.0, 8.4};
static const double tree_intra_us[NET_PROTO_COUNT] = {0.6, 1.25, 4.0};
static const double tree_net_us[NET_PROTO_COUNT] = {5.0, 8.5, 14};
#define TREE_BW_DERATE 0.92

/* NVLSTree's network step, Simple (N tuning.cc:172-174, hwLat NET
 * NVLSTree), and NVLS's (and NVLSTree's) latency inside the node: NCCL's
 * base latency 0 and its NVLink hardware latency 25 us for both (N
 * tuning.cc:153, 161), an NVLS call's whole latency on one node (:424-425:
 * latencies = intraLat; NVLSTree adds 2 log2(nNodes) network steps, :427):
 * the constants tune.c weighs NVLS against the ring with
 * (net_tune_nvlstree_net_s, net_tune_nvls_intra_s). */

/* PAT's tuning model (header comment "PAT"; N tuning.cc:154, 171, 432-433):
 * base latency, the linear part per rank, the network step it divides by
 * 3.5 per log step (the tree's Simple network latency), in seconds. */
#define PAT_BASE_S     8.0e-6
#define PAT_PER_RANK_S 2.8e-6
#define PAT_NET_S      14.0e-6
#define PAT_LOG_DIV    3.5

/* SHARP's tuning model (header comment "SHARP"; N tuning.cc:160-161,
 * 172-173, 340-347, 386-388, 418-426), latencies in us, Simple only. */
#define COLLNET_DIRECT_INTRA_US 3.7  /* hwLat NVLINK CollNetDirect */
#define COLLNET_ARITY_US        0.4  /* "arity serialization latency" */
#define COLLNET_DIRECT_NET_US   31.0 /* hwLat NET CollNetDirect */
#define COLLNET_CHAIN_INTRA_US  2.8  /* hwLat NVLINK CollNetChain */
#define COLLNET_CHAIN_NET_US    30.0 /* hwLat NET CollNetChain */
#define NVLS_INTRA_US           25.0 /* hwLat NVLINK NVLS */
#define NVLS_NET_US             18.0 /* hwLat NET NVLS */
#define PPN1_NET_SIMPLE_US      14.0 /* hwLat NET Tree Simple, for one rank per node */
#define COLLNET_DIRECT_EFF      0.85 /* CollNetDirect busBw on SM 9.0 and later */
#define COLLNET_AGRS_EFF        0.9  /* CollNetDirect all-gather, reduce-scatter: bwInter x 0.9 */
#define COLLNET_MAX_LOCAL       8    /* NCCL_MAX_DIRECT_ARITY + 1 */

double net_congestion(const net_cluster *c, int nodes)
{
	if (!c || nodes <= 1 || !(c->congestion > 0))
		return 1;
	return 1 + c->congestion * pow(nodes - 1.0, c->congestion_exp);
}

/* A network step's latency across `nodes` nodes: NCCL's hw latency `step`
 * plus L (2 L with Simple), stretched by kappa (header comment; on a fabric
 * not calibrated L = 0 and kappa = 1: the step as NCCL's model has it). */
static double inter_step(const net_cluster *c, int nodes, double step, net_proto p)
{
	if (nodes <= 1)
		return step;
	double k = p == NET_PROTO_SIMPLE ? 2 : 1;
	return net_congestion(c, nodes) * (step + k * c->net_lat_s);
}

/* The calibrated per-message cost of a collective of nsteps steps across
 * nodes (0 on a fabric not calibrated). */
static double msg_cost(const net_cluster *c, int nodes, double nsteps)
{
	if (nodes <= 1 || !(c->msg_overhead_s > 0))
		return 0;
	return net_congestion(c, nodes) * nsteps * c->msg_overhead_s;
}

double net_tree_latency(const net_cluster *c, int nodes, net_proto p, double nsteps,
			double ninter)
{
	if ((unsigned)p >= NET_PROTO_COUNT)
		p = NET_PROTO_SIMPLE;
	return 1e-6 * (tree_base_us[p] + (nsteps - ninter) * tree_intra_us[p]) +
	       ninter * inter_step(c, nodes, 1e-6 * tree_net_us[p], p) + msg_cost(c, nodes, nsteps);
}

double net_nvlstree_latency(const net_cluster *c, int nodes)
{
	double ninter = nodes > 1 ? 2.0 * floor(log2((double)nodes)) : 0;
	return net_nvls_latency(c) +
	       ninter * inter_step(c, nodes, net_tune_nvlstree_net_s(), NET_PROTO_SIMPLE) +
	       msg_cost(c, nodes, ninter);
}

static int floor_log2(int n)
{
	int d = 0;
	while (n >> (d + 1))
		d++;
	return d;
}

double net_pat_latency(const net_cluster *c, int n)
{
	if (n < 2)
		return PAT_BASE_S;
	return PAT_BASE_S + n * PAT_PER_RANK_S +
	       floor_log2(n) * inter_step(c, n, PAT_NET_S, NET_PROTO_SIMPLE) / PAT_LOG_DIV +
	       msg_cost(c, n, n - 1.0);
}

double net_tree_proto_bw(net_proto p, bool multi_node)
{
	double cap = p == NET_PROTO_LL      ? 1 / 3.8
	             : p == NET_PROTO_LL128 ? (multi_node ? 120.0 / 128 : 7.0 / 9)
	                                    : 1;
	return TREE_BW_DERATE * cap;
}

bool net_proto_ok(const net_cluster *c, net_proto p)
{
	if (p == NET_PROTO_LL128 && c->node.intra == NET_INTRA_PCIE)
		return false;
	return c->proto <= 0 || c->proto - 1 == (int)p ||
	       (c->proto - 1 == NET_PROTO_LL128 && c->node.intra == NET_INTRA_PCIE);
}



static const char *const coll_names[NET_COLL_COUNT] = {
	"all-reduce", "all-gather", "reduce-scatter", "broadcast", "all-to-all", "p2p"};

const char *net_coll_name(net_coll c)
{
	return (unsigned)c < NET_COLL_COUNT ? coll_names[c] : "?";
}

/* The collective reduced to what the cost formula needs. */
typedef struct shape {
	double bw_time;    /* seconds at busbw (protocol factor 1) */
	double busbw;      /* bytes/s, with the ring's local step (net_ring_local_time) */
	double link_busbw; /* bytes/s of the links alone (the tree's bound) */
	double nsteps, ninter;
	double intra_bytes, inter_bytes;
	bool one_per_node; /* a ring of one rank per node (net_ring_latency) */
	double S;          /* bytes (the tree's per-channel floor, net_tree_cap_time) */
} shape;

bool net_ring_one_per_node(net_coll coll, const net_group *g)
{
	return g && g->per_node == 1 && g->nodes > 1 &&
	       (coll == NET_ALLREDUCE || coll == NET_ALLGATHER || coll == NET_REDUCESCATTER);
}

bool net_pat_ok(const net_cluster *c, net_coll coll, const net_group *g)
{
	return c && g && (coll == NET_ALLGATHER || coll == NET_REDUCESCATTER) && g->size > 1 &&
	       g->per_node == 1 && g->nodes == g->size && net_proto_ok(c, NET_PROTO_SIMPLE);
}

static bool group_ok(const net_cluster *c, net_coll coll, const net_group *g)
{
	if (!g || (unsigned)coll >= NET_COLL_COUNT || g->size < 1 || g->per_node < 1 ||
	    g->nodes < 1 || g->per_node > c->node.gpus || g->nodes > c->nodes ||
	    (int64_t)g->per_node * g->nodes < g->size)
		return false;
	if (g->size == 1)
		return true;
	if (g->per_node > 1 && !(c->node.intra_Bps > 0 && c->node.intra_eff > 0))
		return false;
	return g->nodes == 1 || (c->node.nics > 0 && c->node.nic_Bps > 0 && c->node.nic_eff > 0);
}

static double oversub(const net_cluster *c)
{
	return c->oversubscription >= 1 ? c->oversubscription : 1;
}

/* B_intra of k ranks of one node (the header comment). */
static double intra_busbw(const net_node *nd, double k)
{
	double b = nd->intra_Bps;
	if (nd->intra == NET_INTRA_PCIE) {
		double s = nd->gpus_per_switch > 0 ? nd->gpus_per_switch : 2;
		if (!nd->pcie_p2p)
			b = fmin(b, nd->pcie_Bps / fmin(s, k));
		else if (k > s)
			b = fmin(b, nd->pcie_Bps);
	}
	return b * nd->intra_eff;
}

/* Fill bandwidth, steps and bytes for the ring-style collectives and
 * broadcast: a rank sends send_f * S, the time factor is time_f. */
static void ring_shape(double S, double k, double m, double busbw, double send_f,
		       double time_f, double steps_per_pass, double passes, shape *sh)
{
	sh->busbw = busbw;
	sh->bw_time = time_f * S / busbw;
	sh->nsteps = passes * steps_per_pass;
	sh->ninter = m > 1 ? passes * (m - 1) : 0;
	double sent = send_f * S;
	sh->inter_bytes = m > 1 ? sent / k : 0;
	sh->intra_bytes = sent - sh->inter_bytes;
}

double net_nic_busbw(const net_cluster *c, double k, int m)
{
	const net_node *nd = &c->node;
	return k / nd->gpus * nd->nics * nd->nic_Bps * nd->nic_eff / oversub(c) /
	       net_congestion(c, m);
}

/* One rank's NIC rate across m nodes: min(1, nics/G) NICs (a rank cannot
 * stripe one peer over several NICs, except EFA's rails of one device,
 * which nics/G > 1 counts). */
static double rank_nic_bw(const net_cluster *c, int m)
{
	const net_node *nd = &c->node;
	double share = c->fabric == NET_FABRIC_EFA ? (double)nd->nics / nd->gpus
						   : fmin(1.0, (double)nd->nics / nd->gpus);
	return share * nd->nic_Bps * nd->nic_eff / oversub(c) / net_congestion(c, m);
}

double net_ring_local_time(const net_cluster *c, net_coll coll, const net_group *g, double bytes)
{
	if (!c || !g || !(c->node.ring_local_Bps > 0) || c->node.intra == NET_INTRA_PCIE ||
	    g->nodes != 1 || g->size < 2 ||
	    !(bytes > 0) ||
	    (coll != NET_ALLREDUCE && coll != NET_ALLGATHER && coll != NET_REDUCESCATTER))
		return 0;
	return bytes / (g->size * c->node.ring_local_Bps);
}

/* The ring's local step (header comment) on the ring's shape sh, whose time
 * factor is f: busbw becomes f S / (its data time). */
static void add_local_step(const net_cluster *c, net_coll coll, const net_group *g, double S,
			   double f, shape *sh)
{
	double t = net_ring_local_time(c, coll, g, S);
	if (!(t > 0))
		return;
	sh->bw_time += t;
	sh->busbw = f * S / sh->bw_time;
}

static void make_shape(const net_cluster *c, net_coll coll, const net_group *g, double S,
		       shape *sh)
{
	const net_node *nd = &c->node;
	double n = g->size, k = g->per_node, m = g->nodes;
	double b_intra = k > 1 ? intra_busbw(nd, k) : INFINITY;
	if (k > 1 && m > 1 && nd->intra != NET_INTRA_PCIE && coll != NET_ALLTOALL)
		b_intra *= k / (k - 1); /* the chain's NIC hop (header comment) */
	double b_nic = m > 1 ? net_nic_busbw(c, k, g->nodes) : INFINITY;
	double busbw = fmin(b_intra, b_nic);
	sh->link_busbw = busbw;
	sh->one_per_node = net_ring_one_per_node(coll, g);
	switch (coll) {
	case NET_ALLREDUCE:
		ring_shape(S, k, m, busbw, 2 * (n - 1) / n, 2 * (n - 1) / n, n - 1, 2, sh);
		add_local_step(c, coll, g, S, 2 * (n - 1) / n, sh);
		return;
	case NET_ALLGATHER:
	case NET_REDUCESCATTER:
		ring_shape(S, k, m, busbw, (n - 1) / n, (n - 1) / n, n - 1, 1, sh);
		add_local_step(c, coll, g, S, (n - 1) / n, sh);
		return;
	case NET_BROADCAST:
		ring_shape(S, k, m, busbw, (n - 1) / n, 1, n - 1, 1, sh);
		return;
	case NET_ALLTOALL: {
		sh->intra_bytes = (k - 1) / n * S;
		sh->inter_bytes = (n - k) / n * S;
		/* the node's k ranks each send inter_bytes out of the node over
		 * the group's NIC share b_nic (net_nic_busbw: k/G of the node's
		 * NICs): k x inter_bytes / b_nic, one rank's NIC share per rank */
		double ti = sh->intra_bytes > 0 ? sh->intra_bytes / b_intra : 0;
		double tn = sh->inter_bytes > 0 ? k * sh->inter_bytes / b_nic : 0;
		sh->bw_time = fmax(ti, tn);
		sh->busbw = sh->bw_time > 0 ? (n - 1) / n * S / sh->bw_time : busbw;
		sh->nsteps = (k > 1) + (m > 1);
		sh->ninter = m > 1;
		return;
	}
	case NET_P2P:
	default: {
		double b = m > 1 ? rank_nic_bw(c, g->nodes) : intra_busbw(nd, 1);
		sh->busbw = b;
		sh->bw_time = S / b;
		sh->nsteps = 1;
		sh->ninter = m > 1;
		sh->intra_bytes = m > 1 ? 0 : S;
		sh->inter_bytes = m > 1 ? S : 0;
		return;
	}
	}
}

double net_ring_latency(const net_cluster *c, int nodes, bool one_per_node, double nsteps,
			double ninter, net_proto p)
{
	if ((unsigned)p >= NET_PROTO_COUNT)
		p = NET_PROTO_SIMPLE;
	double intra = c->node.intra == NET_INTRA_PCIE ? pcie_step[p] : nvlink_step[p];
	if (nodes > 1)
		intra = fmax(intra, net_overhead[p]);
	/* one rank per node: the tree's network step (header comment) */
	double step = one_per_node && nodes > 1 ? ppn1_net_step[p] : net_step[p];
	return base_lat[p] + (nsteps - ninter) * intra + ninter * inter_step(c, nodes, step, p) +
	       msg_cost(c, nodes, nsteps);
}

double net_proto_latency(const net_cluster *c, int nodes, double nsteps, double ninter,
			 net_proto p)
{
	return net_ring_latency(c, nodes, false, nsteps, ninter, p);
}

double net_proto_bw(net_proto p)
{
	return (unsigned)p < NET_PROTO_COUNT ? proto_bw[p] : 1.0;
}

/* NCCL's latency for protocol p (see the header comment). */
static double latency(const net_cluster *c, const net_group *g, const shape *sh, int p)
{
	return net_ring_latency(c, g->nodes, sh->one_per_node, sh->nsteps, sh->ninter,
				(net_proto)p);
}

double net_nvls_latency(const net_cluster *c)
{
	(void)c;
	return net_tune_nvls_intra_s();
}

int net_nvls_allreduce(const net_cluster *c, const net_group *g, double bytes, net_cost *out)
{
	*out = (net_cost){0};
	double n = g->size;
	if (c && g->nodes > 1 && bytes > 0 && net_sharp_ok(c, NET_ALLREDUCE, g, NET_ALGO_NVLS)) {
		/* NVLS across nodes over SHARP (net.h, header comment "SHARP") */
		const net_node *nd = &c->node;
		double k = g->per_node, f = 2 * (n - 1) / n;
		double port = nd->intra_Bps * nd->intra_eff * k / (k + 1) * f;
		double busbw = fmin(fmin(nd->nvls_busbw_Bps, port), f * net_sharp_nic_bw(c, k));
		out->proto = NET_PROTO_SIMPLE;
		out->algo = NET_ALGO_NVLS;
		out->latency_s = net_sharp_latency(NET_ALGO_NVLS, g->per_node);
		out->time_s = out->latency_s + f * bytes / busbw + nd->coll_overhead_s;
		out->busbw_Bps = busbw;
		out->intra_bytes = bytes; /* into the switch and back, as NVLS */
		out->inter_bytes = bytes / k;
		return SIM_OK;
	}
	if (!c || !(c->node.nvls_busbw_Bps > 0) || g->nodes != 1 || n < 2 ||
	    c->node.intra != NET_INTRA_NVSWITCH || !(bytes > 0))
		return SIM_EINVAL;
	double algbw = fmin(c->node.nvls_busbw_Bps * n / (2.0 * (n - 1)),
			    c->node.intra_Bps * c->node.intra_eff * n / (n + 1));
	double lat = net_nvls_latency(c);
	out->proto = NET_PROTO_SIMPLE;
	out->algo = NET_ALGO_NVLS;
	out->latency_s = lat;
	out->time_s = lat + bytes / algbw + c->node.coll_overhead_s;
	out->busbw_Bps = c->node.nvls_busbw_Bps;
	out->intra_bytes = bytes; /* sent into the switch once, the sum read back */
	return SIM_OK;
}

bool net_sharp_ok(const net_cluster *c, net_coll coll, const net_group *g, net_algo a)
{
	if (!c || !g || !c->sharp || g->nodes < 2 || g->per_node < 1 ||
	    (int64_t)g->per_node * g->nodes != g->size || !net_proto_ok(c, NET_PROTO_SIMPLE))
		return false;
	bool nvs = c->node.intra == NET_INTRA_NVSWITCH;
	if (coll == NET_ALLGATHER || coll == NET_REDUCESCATTER)
		return a == NET_ALGO_COLLNET_DIRECT && nvs && g->per_node <= COLLNET_MAX_LOCAL &&
		       g->per_node <= c->node.nics;
	if (coll != NET_ALLREDUCE)
		return false;
	switch (a) {
	case NET_ALGO_COLLNET_DIRECT:
		return nvs && g->per_node <= COLLNET_MAX_LOCAL;
	case NET_ALGO_COLLNET_CHAIN:
		return g->per_node <= COLLNET_MAX_LOCAL;
	case NET_ALGO_NVLS:
		return nvs && c->node.nvls_busbw_Bps > 0 && g->per_node >= 2;
	default:
		return false;
	}
}

double net_sharp_latency(net_algo a, int k)
{
	double km1 = k > 1 ? k - 1.0 : 0;
	switch (a) {
	case NET_ALGO_COLLNET_DIRECT:
		return 1e-6 * (2 * (fmin(1, km1) * COLLNET_DIRECT_INTRA_US + km1 * COLLNET_ARITY_US) +
		               (k <= 1 ? PPN1_NET_SIMPLE_US : COLLNET_DIRECT_NET_US));
	case NET_ALGO_COLLNET_CHAIN:
		return 1e-6 * (2 * km1 * COLLNET_CHAIN_INTRA_US +
		               (k <= 1 ? PPN1_NET_SIMPLE_US : COLLNET_CHAIN_NET_US));
	default:
		return 1e-6 * (NVLS_INTRA_US + NVLS_NET_US);
	}
}

double net_sharp_nic_bw(const net_cluster *c, double k)
{
	const net_node *nd = &c->node;
	return k / nd->gpus * nd->nics * nd->nic_Bps * nd->nic_eff;
}

double net_sharp_eff(const net_cluster *c, net_coll coll, net_algo a)
{
	if (a != NET_ALGO_COLLNET_DIRECT)
		return 1;
	if (coll == NET_ALLGATHER || coll == NET_REDUCESCATTER)
		return COLLNET_AGRS_EFF;
	return c->node.intra == NET_INTRA_NVSWITCH && c->node.nvls_busbw_Bps > 0 ? COLLNET_DIRECT_EFF
										 : 1;
}

/* Whether algorithm a on group g runs through SHARP (its bytes above the
 * leaves are one reduced stream per tree: fabric_bytes). */
static bool sharp_algo(net_algo a, const net_group *g)
{
	return a == NET_ALGO_COLLNET_DIRECT || a == NET_ALGO_COLLNET_CHAIN ||
	       (a == NET_ALGO_NVLS && g->nodes > 1);
}

/* Time of algorithm a's shape: the best allowed protocol, or protocol
 * `only` (>= 0). The tree, NVLSTree and PAT have their own latency and
 * protocol models (NVLSTree and PAT: Simple only; PAT at NET_PAT_BW). */
static void best_proto(const net_cluster *c, const net_group *g, const shape *sh, net_algo a,
		       int only, net_cost *out)
{
	double best = INFINITY;
	bool tree = a == NET_ALGO_TREE;
	bool collnet = a == NET_ALGO_COLLNET_DIRECT || a == NET_ALGO_COLLNET_CHAIN;
	for (int p = 0; p < NET_PROTO_COUNT; p++) {
		if (!net_proto_ok(c, (net_proto)p) || (only >= 0 && p != only) ||
		    ((a == NET_ALGO_NVLSTREE || a == NET_ALGO_PAT || collnet) &&
		     p != NET_PROTO_SIMPLE))
			continue;
		double lat = tree		      ? net_tree_latency(c, g->nodes, (net_proto)p,
								  sh->nsteps, sh->ninter)
			     : a == NET_ALGO_NVLSTREE ? net_nvlstree_latency(c, g->nodes)
			     : a == NET_ALGO_PAT      ? net_pat_latency(c, g->size)
			     : collnet		      ? net_sharp_latency(a, g->per_node)
						      : latency(c, g, sh, p);
		double t = lat + sh->bw_time / (tree ? net_tree_proto_bw((net_proto)p, g->nodes > 1)
						     : a == NET_ALGO_NVLSTREE || collnet ? 1
						     : a == NET_ALGO_PAT		 ? NET_PAT_BW
											 : proto_bw[p]);
		if (tree)
			t = fmax(t, lat + net_tree_cap_time(c, g, (net_proto)p, sh->S));
		if (t < best) {
			best = t;
			out->proto = (net_proto)p;
			out->latency_s = lat;
		}
	}
	out->time_s = best + c->node.coll_overhead_s;
	out->busbw_Bps = sh->busbw;
	out->intra_bytes = sh->intra_bytes;
	out->inter_bytes = sh->inter_bytes;
}

static int ceil_log2(int m)
{
	int d = 0;
	while ((1 << d) < m)
		d++;
	return d;
}

/* Whether NVLSTree applies to group g (header comment). */
static bool nvlstree_ok(const net_cluster *c, const net_group *g)
{
	return g->nodes > 1 && g->per_node > 1 && g->per_node * g->nodes == g->size &&
	       c->node.intra == NET_INTRA_NVSWITCH && c->node.nvls_busbw_Bps > 0 &&
	       net_proto_ok(c, NET_PROTO_SIMPLE);
}

/* An all-reduce algorithm's shape from the ring's (header comment); false
 * when it does not apply to group g. */
static bool allreduce_shape(const net_cluster *c, const net_group *g, double S, net_algo a,
			    const shape *ring, shape *sh)
{
	double n = g->size, k = g->per_node, m = g->nodes;
	bool regular = g->per_node * g->nodes == g->size;
	*sh = *ring;
	if (a == NET_ALGO_TREE && regular) {
		sh->S = S;
		sh->busbw = ring->link_busbw;
		sh->bw_time = 2 * S / ring->link_busbw;
		if (m == 2) { /* header comment "tree": S each way per node */
			double t_net = S / net_nic_busbw(c, k, g->nodes);
			double t_in = k > 1 ? 2 * (k - 1) / k * S / intra_busbw(&c->node, k) : 0;
			sh->bw_time = fmax(t_net, t_in);
			sh->busbw = 2 * (n - 1) / n * S / sh->bw_time;
			sh->intra_bytes = 2 * (k - 1) / k * S;
			sh->inter_bytes = S / k;
		}
		sh->nsteps = 2.0 * ((k - 1) + ceil_log2(g->nodes));
		sh->ninter = 2.0 * ceil_log2(g->nodes);
		return true;
	}
	if (a == NET_ALGO_HIER && regular && m > 1 && k > 1) {
		sh->one_per_node = false;
		const net_node *nd = &c->node;
		double b_rank = rank_nic_bw(c, g->nodes);
		double t_in = 2 * (k - 1) / k * S / intra_busbw(nd, k),
		       t_out = 2 * (m - 1) / (k * m) * S / b_rank;
		sh->bw_time = t_in + t_out;
		sh->busbw = 2 * (n - 1) / n * S / sh->bw_time;
		sh->nsteps = 2 * (k - 1) + 2 * (m - 1);
		sh->ninter = 2 * (m - 1);
		sh->intra_bytes = 2 * (k - 1) / k * S;
		sh->inter_bytes = 2 * (m - 1) / (k * m) * S;
		return true;
	}
	if ((a == NET_ALGO_COLLNET_DIRECT || a == NET_ALGO_COLLNET_CHAIN) &&
	    net_sharp_ok(c, NET_ALLREDUCE, g, a)) {
		/* SHARP's CollNet (header comment "SHARP") */
		sh->one_per_node = false;
		double t_in = k > 1 ? 2 * (k - 1) / k * S / intra_busbw(&c->node, k) : 0;
		double t_net = S / net_sharp_nic_bw(c, k);
		sh->bw_time = fmax(t_in, t_net) / net_sharp_eff(c, NET_ALLREDUCE, a);
		sh->busbw = 2 * (n - 1) / n * S / sh->bw_time;
		sh->nsteps = sh->ninter = 1;
		sh->intra_bytes = 2 * (k - 1) / k * S;
		sh->inter_bytes = S / k;
		return true;
	}
	if (a == NET_ALGO_NVLSTREE && nvlstree_ok(c, g)) {
		const net_node *nd = &c->node;
		double port = nd->intra_Bps * nd->intra_eff * k / (k + 1) * 2 * (n - 1) / n;
		double net = (m <= 2 ? 2 * (n - 1) / n : 1) * net_nic_busbw(c, k, g->nodes);
		sh->busbw = fmin(fmin(nd->nvls_busbw_Bps, port), net);
		sh->bw_time = 2 * (n - 1) / n * S / sh->busbw;
		sh->ninter = sh->nsteps = 2.0 * floor(log2(m));
		sh->intra_bytes = S; /* into the switch and back, as NVLS */
		sh->inter_bytes = (m <= 2 ? 1 : 2) * S / k;
		return true;
	}
	return a == NET_ALGO_RING;
}

bool net_efa_region(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		    net_algo *algo, net_proto *proto)
{
	if (!c || !g || c->fabric != NET_FABRIC_EFA || g->nodes <= 2 ||
	    g->per_node * g->nodes != g->size || c->algo != NET_ALGO_AUTO || c->proto > 0)
		return false;
	net_algo a[8];
	net_proto p[8];
	int n = net_efa_regions(c->node.ec2, coll, g->per_node, bytes, g->size, a, p, 8);
	for (int i = 0; i < n; i++) {
		/* The pairs NCCL would mark not applicable are skipped (PAT:
		 * net_pat_ok, Simple). */
		if (a[i] == EFA_PAT ? !net_pat_ok(c, coll, g) || p[i] != NET_PROTO_SIMPLE
		                    : !net_proto_ok(c, p[i]) ||
		                              (a[i] == NET_ALGO_NVLSTREE && !nvlstree_ok(c, g)) ||
		                              (a[i] != NET_ALGO_RING && coll != NET_ALLREDUCE))
			continue;
		*algo = a[i];
		*proto = p[i];
		return true;
	}
	return false;
}

double net_efa_tuner_latency(const net_cluster *c)
{
	return c && (c->node.ec2 == NET_EC2_P5EN || c->node.ec2 == NET_EC2_P6_B200)
		       ? NET_EFA_TUNER_LATENCY_P5EN
		       : NET_EFA_TUNER_LATENCY;
}

double net_sync_delay(const net_cluster *c, const net_group *g, double bytes)
{
	if (!c || !g || g->nodes <= 1 || !(c->sync_s > 0) || !(bytes > 0) || g->size < 2)
		return 0;
	return c->sync_s * pow(g->nodes - 1.0, c->congestion_exp);
}

/* All-gather and reduce-scatter: PAT where it applies (net_pat_ok), forced
 * by nccl_algo or the region (`region`: its algorithm, or AUTO), else
 * against the ring's time in *out unless the ring is forced. PAT's shape is
 * the ring's bytes with t_bw = S / B_link (header comment "PAT"). */
static void pat_pick(const net_cluster *c, net_coll coll, const net_group *g, double S,
		     const shape *ring, net_algo region, net_cost *out)
{
	if (!net_pat_ok(c, coll, g))
		return;
	bool forced = c->algo == NET_ALGO_PAT || region == NET_ALGO_PAT;
	if (!forced && (c->algo == NET_ALGO_RING || region == NET_ALGO_RING))
		return;
	shape sh = *ring;
	sh.busbw = ring->link_busbw;
	sh.bw_time = S / ring->link_busbw;
	net_cost x = {0};
	best_proto(c, g, &sh, NET_ALGO_PAT, NET_PROTO_SIMPLE, &x);
	x.algo = NET_ALGO_PAT;
	if (forced || x.time_s < out->time_s)
		*out = x;
}

/* All-gather and reduce-scatter through SHARP (CollNetDirect; header
 * comment "SHARP") where net_sharp_ok, forced by nccl_algo, else against
 * *out unless the ring or PAT is forced where it applies. */
static void sharp_pick(const net_cluster *c, net_coll coll, const net_group *g, double S,
		       net_cost *out)
{
	if (!net_sharp_ok(c, coll, g, NET_ALGO_COLLNET_DIRECT))
		return;
	bool forced = c->algo == NET_ALGO_COLLNET_DIRECT;
	if (!forced && (c->algo == NET_ALGO_RING || (c->algo == NET_ALGO_PAT && net_pat_ok(c, coll, g))))
		return;
	double n = g->size, k = g->per_node;
	shape sh = {0};
	double t_in = k > 1 ? (k - 1) / k * S / intra_busbw(&c->node, k) : 0;
	sh.bw_time = fmax(t_in, S / net_sharp_nic_bw(c, k)) /
		     net_sharp_eff(c, coll, NET_ALGO_COLLNET_DIRECT);
	sh.busbw = (n - 1) / n * S / sh.bw_time;
	sh.intra_bytes = (k - 1) / k * S;
	sh.inter_bytes = S / k; /* the busier way: a head's rail, S/k, against its own S/n */
	net_cost x = {0};
	best_proto(c, g, &sh, NET_ALGO_COLLNET_DIRECT, NET_PROTO_SIMPLE, &x);
	x.algo = NET_ALGO_COLLNET_DIRECT;
	if (forced || x.time_s < out->time_s)
		*out = x;
}

/* net_collective without the synchronisation delay and without NCCL's own
 * view on EFA: the lowest time on c (or the region's, or the forced pair). */
static int collective(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		      net_cost *out)
{
	*out = (net_cost){0};
	out->proto = NET_PROTO_SIMPLE;
	out->algo = NET_ALGO_RING;
	if (!c || !group_ok(c, coll, g) || !(bytes >= 0))
		return SIM_EINVAL;
	if (g->size == 1 || bytes == 0)
		return SIM_OK;
	/* On EFA the aws-ofi-nccl tuner's region forces its algorithm and
	 * protocol where they apply: for all-gather and reduce-scatter the
	 * ring's protocol, for all-reduce the pair. */
	net_algo ra = NET_ALGO_AUTO;
	net_proto rp = NET_PROTO_SIMPLE;
	bool region = net_efa_region(c, coll, g, bytes, &ra, &rp);
	shape ring;
	make_shape(c, coll, g, bytes, &ring);
	best_proto(c, g, &ring, NET_ALGO_RING,
		   region && coll != NET_ALLREDUCE && ra != NET_ALGO_PAT ? (int)rp : -1, out);
	if (coll == NET_ALLGATHER || coll == NET_REDUCESCATTER) {
		pat_pick(c, coll, g, bytes, &ring, region ? ra : NET_ALGO_AUTO, out);
		sharp_pick(c, coll, g, bytes, out);
		return SIM_OK;
	}
	if (coll != NET_ALLREDUCE)
		return SIM_OK;
	/* All-reduce: every algorithm that applies, the forced one, or the
	 * region's. */
	bool forced = false;
	net_cost best = *out, x;
	for (int a = NET_ALGO_RING; a < NET_ALGO_COUNT; a++) {
		shape sh;
		bool ok = a == NET_ALGO_NVLS ? net_proto_ok(c, NET_PROTO_SIMPLE) &&
						       net_nvls_allreduce(c, g, bytes, &x) == SIM_OK
					     : allreduce_shape(c, g, bytes, (net_algo)a, &ring, &sh);
		if (!ok)
			continue;
		bool pick = region && ra == (net_algo)a;
		if (a != NET_ALGO_NVLS) {
			x = (net_cost){0};
			best_proto(c, g, &sh, (net_algo)a, pick ? (int)rp : -1, &x);
		}
		x.algo = (net_algo)a;
		if (c->algo == (net_algo)a || pick) {
			*out = x;
			forced = true;
		}
		/* hier is not one of NCCL's algorithms: forced only (as sim/topo). */
		if (a != NET_ALGO_HIER && x.time_s < best.time_s)
			best = x;
	}
	if (!forced)
		*out = best;
	return SIM_OK;
}

/* The cluster as NCCL's tuner sees it (header comment, "The EFA model", 6.). */
static net_cluster tuner_view(const net_cluster *c)
{
	net_cluster v = *c;
	v.net_lat_s = net_efa_tuner_latency(c);
	v.msg_overhead_s = 0;
	v.congestion = 0;
	v.sync_s = 0;
	return v;
}

bool net_efa_choice(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		    net_algo *algo, net_proto *proto)
{
	if (!c || !g || c->fabric != NET_FABRIC_EFA || g->nodes <= 1 || g->size < 2 ||
	    !(bytes > 0) || (unsigned)coll >= NET_COLL_COUNT)
		return false;
	/* the plugin's region tuner first (7.), then NCCL's own table with the
	 * plugin's latency (tune.c); the closed forms' pick on NCCL's view of
	 * the cluster where the table has no entry (all-to-all, p2p, hier) */
	if (net_efa_region(c, coll, g, bytes, algo, proto))
		return true;
	if (group_ok(c, coll, g) && net_tune_pick(c, coll, g, bytes, algo, proto))
		return true;
	net_cluster v = tuner_view(c);
	net_cost k;
	if (collective(&v, coll, g, bytes, &k) != SIM_OK)
		return false;
	*algo = k.algo;
	*proto = k.proto;
	return true;
}

int net_nccl_choice(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		    net_algo *algo, net_proto *proto)
{
	if (net_efa_choice(c, coll, g, bytes, algo, proto))
		return SIM_OK;
	net_cost k;
	int rc = collective(c, coll, g, bytes, &k);
	*algo = k.algo;
	*proto = k.proto;
	/* NCCL's own table (tune.c) where it has one (inside one node on EFA
	 * too: the plugin's terms are the network's); else (all-to-all, p2p,
	 * a forced hier) the closed forms' pick above */
	if (rc == SIM_OK)
		net_tune_pick(c, coll, g, bytes, algo, proto);
	return rc;
}

int net_collective(const net_cluster *c, net_coll coll, const net_group *g, double bytes,
		   net_cost *out)
{
	net_algo a;
	net_proto p;
	int rc;
	if (net_efa_choice(c, coll, g, bytes, &a, &p) ||
	    (c && group_ok(c, coll, g) && net_tune_pick(c, coll, g, bytes, &a, &p))) {
		/* NCCL's pair, timed with the cluster's own costs */
		net_cluster f = *c;
		f.algo = a; /* ring for the collectives that have no other */
		f.proto = (int)p + 1;
		rc = collective(&f, coll, g, bytes, out);
	} else {
		rc = collective(c, coll, g, bytes, out);
	}
	if (rc == SIM_OK && out->time_s > 0) {
		out->sync_s = net_sync_delay(c, g, bytes);
		out->time_s += out->sync_s;
	}
	/* SHARP: one reduced stream per tree on a leaf's uplink, whatever the
	 * oversubscription (header comment "SHARP") */
	if (rc == SIM_OK && g->nodes > 1 && out->inter_bytes > 0 && net_fabric_uplinks(c))
		out->fabric_bytes = (sharp_algo(out->algo, g) ? 1 : oversub(c)) * out->inter_bytes *
				    c->node.gpus / c->node.nics;
	return rc;
}

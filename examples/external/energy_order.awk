# energy_order.awk: a second hcbench external algorithm (docs/external.md), in awk: the jet's
# leaves joined one at a time in decreasing energy, a caterpillar tree (((e1,e2),e3),...), the
# baseline "no clustering at all" that any method should beat. It answers merges and no
# log-likelihood: hcbench scores the tree itself.
#
# It reads the request with patterns rather than a JSON parser, which works because hcbench writes
# its requests as compact JSON (no spaces) and task keys hold no quotes; a real program should
# parse JSON. energy_order.sh runs it once per request: awk implementations buffer their input
# differently (mawk reads ahead until it has a block, which would wait for requests that never
# come), and one awk per line sidesteps that.
{
	if (!match($0, /"task":"[^"]*"/)) {
		print "no task in the request" > "/dev/stderr"
		exit 1
	}
	task = substr($0, RSTART + 8, RLENGTH - 9)
	match($0, /"n":[0-9]+/)
	n = substr($0, RSTART + 4, RLENGTH - 4) + 0
	start = index($0, "\"leaves\":[[")
	if (start == 0) {
		printf "{\"task\":\"%s\",\"error\":\"energy_order.awk clusters jets (data.leaves)\"}\n", task
		fflush()
		next
	}
	body = substr($0, start + 11)
	body = substr(body, 1, index(body, "]]") - 1)
	split(body, rows, /\],\[/)
	for (i = 1; i <= n; i++) {
		split(rows[i], f, ",")
		e[i - 1] = f[1] + 0
		order[i - 1] = i - 1
	}
	# Insertion sort of the leaves by decreasing energy (ties: the lower index first).
	for (i = 1; i < n; i++) {
		x = order[i]
		for (j = i - 1; j >= 0 && e[order[j]] < e[x]; j--)
			order[j + 1] = order[j]
		order[j + 1] = x
	}
	merges = ""
	prev = order[0]
	for (k = 1; k < n; k++) {
		merges = merges (k > 1 ? "," : "") "[" prev "," order[k] "]"
		prev = n + k - 1
	}
	printf "{\"task\":\"%s\",\"merges\":[%s]}\n", task, merges
	fflush()
}

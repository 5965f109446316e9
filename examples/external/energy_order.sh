#!/bin/sh
# energy_order.sh: an hcbench external algorithm (docs/external.md) as a shell script: each
# request line goes to energy_order.awk, which answers it on stdout. The loop ends when hcbench
# closes stdin. Run it as command: [path/to/energy_order.sh].
awk_program="$(dirname "$0")/energy_order.awk"
while IFS= read -r request; do
	printf '%s\n' "$request" | awk -f "$awk_program" || exit 1
done

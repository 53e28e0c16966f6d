# The judge of sbx's folded stacks: `perf script -F comm,ip,sym,dso` of a
# recording with call chains, folded by the rules of stackcollapse-perf
# (FlameGraph): per sample "comm;outer;...;leaf", a count per unique stack.
# Frame names: the symbol with C++ argument lists cut off (an "(anonymous
# namespace)" kept), ';' made ':', quotes dropped; "[unknown]" becomes the
# DSO's base name in brackets; the comm's spaces become '_'.
function flush() {
	if (comm != "")
		n[comm stack]++
	comm = ""
	stack = ""
}
function tidy(f,   out, i) {
	gsub(/;/, ":", f)
	gsub(/["']/, "", f)
	out = ""
	while ((i = index(f, "(")) > 0) {
		if (substr(f, i, 21) != "(anonymous namespace)")
			return out substr(f, 1, i - 1)
		out = out substr(f, 1, i + 20)
		f = substr(f, i + 21)
	}
	return out f
}
/^$/ { flush(); next }
/^\t/ {
	line = $0
	sub(/^[ \t]+/, "", line)
	rest = substr(line, index(line, " ") + 1)
	lp = 0
	for (k = length(rest) - 1; k > 0; k--)
		if (substr(rest, k, 2) == " (") { lp = k; break }
	sym = substr(rest, 1, lp - 1)
	mod = substr(rest, lp + 2, length(rest) - lp - 2)
	if (sym == "[unknown]") {
		if (mod != "[unknown]") {
			sub(/.*\//, "", mod)
			sym = "[" mod "]"
		}
	} else {
		sym = tidy(sym)
	}
	stack = ";" sym stack
	next
}
{
	flush()
	c = $0
	sub(/[ \t]+$/, "", c)
	gsub(/ /, "_", c)
	comm = c
}
END {
	flush()
	for (k in n)
		print k, n[k]
}

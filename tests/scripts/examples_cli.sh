#!/usr/bin/env bash
# `posviz examples` through the real binary: the list, each example's steps and verdicts, the
# documents' wrong numbers reported with the correct value and cause, and the exit codes
# (0 ok, 2 for an unknown name or extra arguments, with the names listed on stderr).
#   bash examples_cli.sh <posviz-binary> <scratch-dir>
set -u
bin=${1:?usage: examples_cli.sh POSVIZ SCRATCH}
out=${2:?usage: examples_cli.sh POSVIZ SCRATCH}
rm -rf "$out" && mkdir -p "$out" || exit 1
failures=0
checks=0

pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }

# run NAME CODE ARGS...: posviz ARGS into $out/NAME.{out,err}, want exit CODE.
run() {
  local name=$1 code=$2; shift 2
  timeout 60 "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  if [ "$rc" -eq "$code" ]; then pass "posviz $* exits $code"; else fail "posviz $* exits $rc, want $code; stderr: $(head -c 300 "$out/$name.err")"; fi
}

# has FILE NEEDLE: FILE contains the fixed string NEEDLE.
has() {
  if grep -qF -- "$2" "$1"; then pass "$(basename "$1") has '$2'"; else fail "$(basename "$1") lacks '$2'"; fi
}

# line FILE REGEX: some line of FILE matches the extended regex.
line() {
  if grep -qE -- "$2" "$1"; then pass "$(basename "$1") has a line matching /$2/"; else fail "$(basename "$1") has no line matching /$2/"; fi
}

# The list: every example, with its verdict summary.
run list 0 examples
names="sinusoidal-pos3-d8 sinusoidal-pair1-pos3 sinusoidal-wavelengths-d512 sinusoidal-frequency-order
sinusoidal-offset-rotation toy-the-sky-is-not rope-2d-m5-n2 rope-repeat-interleaved-code rope-half-split-code
alibi-4tokens-m0.5 alibi-slopes-8heads learned-ceiling-512 shuffled-sentence-permutation dog-bites-man
ntk-yarn-4096-to-131072 interview-q1-equivariance interview-q2-wavelengths interview-q3-learned-vs-rope
interview-q4-rope-relative interview-q5-alibi-bias interview-q6-where-position-acts interview-q7-values-not-rotated
interview-q8-extending-rope interview-q9-alibi-vs-rope interview-q10-one-pair
code-teaching-sinusoidal code-teaching-learned code-teaching-rope code-teaching-alibi code-teaching-mha code-8-5-modules
code-understanding-apply-rope code-interview-rotary code-interview-main-check interview-probes paper-t5-buckets paper-xpos-scales
paper-alibi-slopes paper-roformer-decay"
for n in $names; do line "$out/list.out" "^  $n +[0-9]+ agree"; done
line "$out/list.out" "^  sinusoidal-pos3-d8 +24 agree +Sinusoidal PE at position 3"
line "$out/list.out" "^  sinusoidal-wavelengths-d512 +2 agree, 4 differ \(4 causes\)"
# Honest counts: three 9th-decimal truncations apart from the one real error; one erratum, not 13.
line "$out/list.out" "^  rope-2d-m5-n2 +10 agree, 3 truncated, 1 differs "
line "$out/list.out" "^  alibi-slopes-8heads +10 agree, 13 differ \(1 cause\) "
line "$out/list.out" "^  alibi-4tokens-m0.5 +32 agree +ALiBi"
count=$(grep -cE '^  [a-z0-9.-]+ +[0-9]+ agree' "$out/list.out")
if [ "$count" -eq 39 ]; then pass "the list has 39 examples"; else fail "the list has $count examples, want 39"; fi
if [ ! -s "$out/list.err" ]; then pass "the list writes nothing to stderr"; else fail "the list wrote to stderr: $(head -c 200 "$out/list.err")"; fi

# Sinusoidal pos 3: every step, the 9-decimal claims agree.
run pos3 0 examples sinusoidal-pos3-d8
has "$out/pos3.out" "sinusoidal-pos3-d8: Sinusoidal PE at position 3 with d_model = 8"
has "$out/pos3.out" "verdicts: 24 agree"
line "$out/pos3.out" "^Step 1/5: Pair i = 0"
line "$out/pos3.out" "^Step 5/5: The full vector PE\(3\)"
has "$out/pos3.out" "AGREES: claimed 0.141120008, computed 0.14112000806 (9 decimals)"
has "$out/pos3.out" "AGREES: claimed -0.989992497"
if ! grep -q "DIFFERS" "$out/pos3.out"; then pass "pos 3 has no DIFFERS"; else fail "pos 3 has a DIFFERS line"; fi

# The wavelength table: 630 and 62,800 are wrong, with the correct value and the cause.
run wl 0 examples sinusoidal-wavelengths-d512
has "$out/wl.out" "AGREES: claimed 6.3, computed 6.283 (1 decimal)"
has "$out/wl.out" "DIFFERS: claimed ~630, correct 62.8319 (within 10%), likely cause: "
has "$out/wl.out" "the table used the dimension index as the pair index i"
has "$out/wl.out" "DIFFERS: claimed ~62,800, correct 606.115 (within 10%)"
has "$out/wl.out" "DIFFERS: claimed >= 1,000, correct 628.319"

# 2-D RoPE: the score is sin 3 = 0.141120, not -0.2579.
run rope 0 examples rope-2d-m5-n2
has "$out/rope.out" "DIFFERS: claimed -0.2579, correct 0.141120 (4 decimals), likely cause: only the first product"
line "$out/rope.out" "sum \(core ropeScore\) = 0\.14112000(8|9)"
has "$out/rope.out" "AGREES: claimed -0.416146837"

# ALiBi: the bias agrees; the 12-head rule differs from Press et al.
run alibi 0 examples alibi-4tokens-m0.5
has "$out/alibi.out" "verdicts: 32 agree"
has "$out/alibi.out" "B[0][3] = -1.5"
run slopes 0 examples alibi-slopes-8heads
has "$out/slopes.out" "AGREES: claimed 1/256, computed 0.00390625 (exact)"
has "$out/slopes.out" "DIFFERS: claimed 0.629961, correct 0.5"

# The learned ceiling: the crash is core's error message.
run learned 0 examples learned-ceiling-512
has "$out/learned.out" "AGREES: claimed crash (an error), observed: pos 1024 has no row: the table has max_len 512"

# The shuffled sentence: equivariant without position, broken by each encoding but symmetric ALiBi.
run shuffle 0 examples shuffled-sentence-permutation
has "$out/shuffle.out" "perm = [5, 4, 3, 2, 1, 0]"
line "$out/shuffle.out" "max \|Attn\(PX\) - P Attn\(X\)\| = [0-9.e-]+"
has "$out/shuffle.out" "DIFFERS: claimed > 0 (breaks), correct"
has "$out/shuffle.out" "symmetric ALiBi cannot tell a sentence from its reversal"

# The repeat() bug in the interview guide's RoPE code.
run repeat 0 examples rope-repeat-interleaved-code
has "$out/repeat.out" "repeat_interleave(2, dim=-1)"

# The interview guide's questions: titled by the question, the reversed wavelength order flagged once.
line "$out/list.out" "^  interview-q1-equivariance +5 agree +Q1\. Explain permutation equivariance"
line "$out/list.out" "^  interview-q2-wavelengths +1 agree, 3 differ \(1 cause\) +Q2\. "
line "$out/list.out" "^  interview-q8-extending-rope +6 agree, 1 differs +Q8\. "
line "$out/list.out" "^  interview-q10-one-pair +7 agree +Q10\. "
run q2 0 examples interview-q2-wavelengths
has "$out/q2.out" "source: Positional Encoding (LLM interview guide), question 2"
has "$out/q2.out" "DIFFERS: claimed > 1, correct 0.001 (at least 1), likely cause: theta_i = 10000^(-2i/d) falls as i grows"
has "$out/q2.out" "The answer has the order reversed"
run q7 0 examples interview-q7-values-not-rotated
has "$out/q7.out" "max |W(V rotated) - W(V)| = 0"
has "$out/q7.out" "AGREES: claimed unchanged, computed 0 (exact)"
run q8 0 examples interview-q8-extending-rope
has "$out/q8.out" "DIFFERS: claimed 0 pairs out of range, correct 17 (exact), likely cause: NTK-aware scaling"
has "$out/q8.out" "AGREES: claimed <= 4096 (the trained length), computed 4096"

# The code audits: what each listing did at its edges, one line per claim with --topic.
line "$out/list.out" "^  code-teaching-rope +2 agree, 3 differ \(3 causes\) "
line "$out/list.out" "^ +listing: 2 error, 2 agrees, 1 silent truncation$"
line "$out/list.out" "^ +listing: 1 memory, 1 silent truncation, 1 error$"
run audits 0 examples --topic code_audits
line "$out/audits.out" "^code-teaching-alibi  \(2 agree, 2 differ \(2 causes\)\)"
line "$out/audits.out" "^  agrees +\[memory\] +Parameters: 0 \(ALiBi, comparison table\)"
line "$out/audits.out" "^  DIFFERS +\[silent truncation\] +Returns: bias: \(1, H, T, T\)"
line "$out/audits.out" "^  DIFFERS +\[wrong values\] +Q·K\^T dot product"
line "$out/audits.out" "^  DIFFERS +\[cannot fail\] +The if __name__ block"
if ! grep -q "^interview-" "$out/audits.out"; then pass "--topic code_audits lists only code audits"; else fail "--topic code_audits lists other topics"; fi
run topicq 0 examples --topic interview
line "$out/topicq.out" "^interview-q2-wavelengths  \(1 agree, 3 differ \(1 cause\)\)"
run alibi001 0 examples code-teaching-alibi
has "$out/alibi001.out" "    bytes = 2147483648"
has "$out/alibi001.out" "    listing: memory"
run rope001 0 examples code-teaching-rope
has "$out/rope001.out" "the step returns (2, 8, 0, 64), an empty query"
has "$out/rope001.out" "RuntimeError: The size of tensor a (64) must match the size of tensor b (512) at non-singleton dimension 3"
# The "Test Coverage" list of Teaching Transformers to Count as a grid: pass / FAIL / n/a per listing.
run tests 0 examples --tests
line "$out/tests.out" "^KV-cache offset +n/a +n/a +pass +n/a +n/a +n/a +FAIL +n/a +n/a +FAIL +n/a *$"
line "$out/tests.out" "^rotation preserves the norm +n/a +n/a +pass +n/a +n/a +n/a +pass +n/a +n/a +FAIL +n/a *$"
has "$out/tests.out" "L3 Teaching: RoPE"
has "$out/tests.out" "FAIL MultiHeadAttention shapes"
run badtopic 2 examples --topic nope
has "$out/badtopic.err" "unknown topic \"nope\"; topics: order, sinusoidal, learned, rope, alibi, code_audits, toy_config, context_extension, interview, papers"
# The papers' worked numbers: T5 buckets against HF's function, ALiBi's 12-head rule.
line "$out/list.out" "^  paper-t5-buckets +36 agree +T5 relative position buckets"
run t5 0 examples paper-t5-buckets
has "$out/t5.out" "bucket(-64) = 14"
has "$out/t5.out" "AGREES: claimed 26, computed 26 (exact)"
run papers 0 examples --topic papers
line "$out/papers.out" "^paper-alibi-slopes  \(22 agree\)"
line "$out/topicq.out" "^interview-probes  \(6 agree\)"
run notopic 2 examples --topic
has "$out/notopic.err" "--topic needs one TOPIC"
run badopt 2 examples --frobnicate
has "$out/badopt.err" "unknown option \"--frobnicate\""
if ! grep -q "examples: examples:" "$out/badopt.err" "$out/badtopic.err"; then pass "no doubled prefix"; else fail "a doubled prefix"; fi

# Usage errors: unknown name -> 2 with the names on stderr, nothing on stdout.
run unknown 2 examples no-such-example
has "$out/unknown.err" "unknown example \"no-such-example\""
has "$out/unknown.err" "  rope-2d-m5-n2"
if [ ! -s "$out/unknown.out" ]; then pass "unknown name prints nothing on stdout"; else fail "unknown name printed on stdout"; fi
run extra 2 examples rope-2d-m5-n2 extra
has "$out/extra.err" "expected at most one NAME"
run help 0 examples --help
has "$out/help.out" "posviz examples NAME"

echo "$((checks - failures))/$checks checks passed"
[ "$failures" -eq 0 ]

# SPDX-License-Identifier: MIT
# The fenced blocks of a Markdown document, run as a reader would run them:
# sourced by tests/readme.t (check) and scripts/readme-samples (samples).
# The caller defines top, build, tmp and the TAP functions ok, not_ok,
# skip and diag (tests/lib.sh has them).
#
# A block's info string says what it is:
#   ```c [FILE.c]   a C program: written to FILE.c (default block-LINE.c) in
#                   the document's scratch directory, compiled against the
#                   build (-Iinclude build/libvdsokit.a) and run: it must
#                   compile without a warning and exit 0
#   ```sh           shell commands, run with `sh -e` in that scratch
#                   directory: the build's vdsokit first on PATH, pkg-config
#                   finding vdsokit.pc for the build (its shared library on
#                   LD_LIBRARY_PATH); each command must succeed
#   ```sh no-run: REASON   not run (root only, or long): a SKIP naming REASON
#   ```text, ```json, ...  output or data, not run
# A block without an info string is a failure: say which of those it is.
# The blocks of one document run in order in one scratch directory, so a
# later block can use a file an earlier one wrote (hello.c, run.json).
#
# Sample output with figures is not typed in but written from a real run:
#   <!-- sample: COMMAND -->
#   ```text
#   ...
#   ```
#   <!-- /sample -->
# `make readme-samples` runs COMMAND (sh -e, in the scratch directory, after
# the blocks above it; $top and $build are set) and puts its output in the
# block.  The check only verifies the markers' shape: samples vary by
# machine and run.

# doc_env: the scratch environment's vdsokit.pc, for the build.
doc_env() {
	mkdir -p "$tmp/pkgconfig"
	version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
	sed -e "s|@PREFIX@|$build|" -e "s|@LIBDIR@|$build/lib|" -e "s|@INCDIR@|$top/include|" \
		-e "s|@VERSION@|$version|" "$top/vdsokit.pc.in" >"$tmp/pkgconfig/vdsokit.pc"
}

# doc_run DIR COMMAND...: COMMAND in DIR with the scratch environment,
# output in $tmp/doc.out.  At most 120 s: a block that hangs fails.
doc_run() {
	(cd "$1" && shift &&
		PATH="$build:$PATH" PKG_CONFIG_PATH="$tmp/pkgconfig" LD_LIBRARY_PATH="$build/lib" \
			top="$top" build="$build" timeout 120 "$@") >"$tmp/doc.out" 2>&1
}

# doc_c DIR FILE: compile DIR/FILE against the build and run it.
doc_c() {
	${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -I"$top/include" -o "$1/${2%.c}" "$1/$2" \
		"$build/libvdsokit.a" -lpthread >"$tmp/doc.out" 2>&1 &&
		doc_run "$1" "./${2%.c}"
}

# doc_block MODE DOC LINE INFO FILE DIR: one finished block.  In check mode
# a TAP line; in samples mode a failure is a message and doc_failed=1.
doc_block() {
	mode=$1 where="$2:$3" info=$4 body=$5 dir=$6
	lang=${info%% *}
	rest=
	[ "$lang" = "$info" ] || rest=${info#* }
	what="$where $lang: $(sed -n '/[^[:space:]]/{ s/^[[:space:]]*//; p; q; }' "$body" | cut -c1-60)"
	case $lang in
	"")
		doc_marker "$mode" "$where: a fenced block without a language tag (c, sh, sh no-run: REASON, or text for output)"
		;;
	c)
		file=${rest%% *}
		case $file in *.c) ;; *) file=block-$3.c ;; esac
		cp "$body" "$dir/$file"
		doc_c "$dir" "$file"
		doc_result "$mode" $? "$where c $file: compiles against the build (-Werror) and runs, exit 0"
		;;
	sh)
		case $rest in
		"")
			doc_run "$dir" sh -e "$body"
			doc_result "$mode" $? "$what"
			;;
		no-run*)
			reason=$(printf '%s' "${rest#no-run}" | sed 's/^[:[:space:]]*//')
			if [ -z "$reason" ]; then
				doc_marker "$mode" "$where: sh no-run without a reason (sh no-run: REASON)"
			elif [ "$mode" = check ]; then
				skip "$where sh not run: $reason"
			fi
			;;
		*)
			doc_marker "$mode" "$where: unknown sh marker '$rest' (sh, or sh no-run: REASON)"
			;;
		esac
		;;
	esac
}

doc_result() { # MODE STATUS DESCRIPTION
	if [ "$2" -eq 0 ]; then
		[ "$1" = check ] && ok "$3"
	elif [ "$1" = check ]; then
		not_ok "$3"
		tail -n 15 "$tmp/doc.out" 2>/dev/null | diag
	else
		echo "readme-samples: not ok: $3" >&2
		tail -n 15 "$tmp/doc.out" >&2 2>/dev/null
		doc_failed=1
	fi
}

# doc_blocks MODE DOC [OUT]: runs DOC's blocks (MODE check or samples); in
# samples mode writes DOC with fresh samples to OUT.  Returns 1 when a block
# or a sample failed (samples mode) or the markers are malformed.
doc_blocks() {
	mode=$1 doc=$2 out=${3:-/dev/null}
	name=${doc#"$top"/}
	dir=$(mktemp -d "$tmp/doc.XXXXXX")
	body=$tmp/doc.block
	lineno=0 inblock=0 start=0 info="" sample="" sample_line=0 in_sample=0 want_end=0
	doc_failed=0
	: >"$out"
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		if [ "$inblock" = 1 ]; then
			case $line in
			'```' | '``` ' | '```  ')
				inblock=0
				if [ "$in_sample" = 1 ]; then
					in_sample=0 want_end=1
					if [ "$mode" = samples ]; then
						if doc_run "$dir" sh -e -c "$sample" && [ -s "$tmp/doc.out" ]; then
							cat "$tmp/doc.out" >>"$out"
						else
							doc_result samples 1 "$name:$sample_line: sample command '$sample' failed or printed nothing"
						fi
					fi
				else
					doc_block "$mode" "$name" "$start" "$info" "$body" "$dir"
				fi
				printf '%s\n' "$line" >>"$out"
				continue
				;;
			esac
			printf '%s\n' "$line" >>"$body"
			[ "$in_sample" = 1 ] && [ "$mode" = samples ] || printf '%s\n' "$line" >>"$out"
			continue
		fi
		printf '%s\n' "$line" >>"$out"
		if [ "$want_end" = 1 ]; then
			want_end=0
			if [ "$line" != "<!-- /sample -->" ]; then
				doc_marker "$mode" "$name:$sample_line: the sample's block is not followed by <!-- /sample -->"
			elif [ "$mode" = check ]; then
				ok "$name:$sample_line: sample block, written by make readme-samples from: $sample"
			fi
			sample=""
			continue
		fi
		case $line in
		'```'*)
			info=$(printf '%s' "${line#'```'}" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
			inblock=1 start=$lineno
			: >"$body"
			if [ -n "$sample" ]; then
				[ "$info" = text ] ||
					doc_marker "$mode" "$name:$sample_line: a sample's block is \`\`\`text, not '$info'"
				in_sample=1
			fi
			;;
		'<!-- sample: '*' -->')
			sample=${line#'<!-- sample: '}
			sample=${sample%' -->'}
			sample_line=$lineno
			continue
			;;
		'<!-- /sample -->')
			doc_marker "$mode" "$name:$lineno: <!-- /sample --> without a sample before it"
			;;
		esac
		# A sample marker belongs to the block right after it.
		[ "$in_sample" = 1 ] || [ -z "$sample" ] || {
			doc_marker "$mode" "$name:$sample_line: <!-- sample: ... --> not followed by its \`\`\`text block"
		}
		[ "$in_sample" = 1 ] || sample=""
	done <"$doc"
	[ "$inblock" = 0 ] || doc_marker "$mode" "$name:$start: a fenced block that never ends"
	rm -rf "$dir"
	return "$doc_failed"
}

doc_marker() { # MODE DESCRIPTION
	: >"$tmp/doc.out"
	doc_result "$1" 1 "$2"
}

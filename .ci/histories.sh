# histories.sh, sourced by .ci/history-openapi and .ci/speed-table: reading
# two versions of a public OpenAPI description out of a directory of git
# clones ($hist, CONTRACTLINT_HISTORIES), and making Redocly's extensions
# plain OpenAPI so both contractlint and oasdiff read them.

# gitdir OWNER+NAME: the git directory of that clone under $hist, or nothing.
gitdir() {
	for d in "$hist/$1/repo" "$hist/$1.git" "$hist/$1/.git" "$hist/$1"; do
		if git --git-dir="$d" rev-parse -q --verify HEAD >/dev/null 2>&1; then
			echo "$d"
			return
		fi
	done
}

export_tree() { # export_tree GITDIR COMMIT PATHS DEST, PATHS comma-separated
	mkdir -p "$4"
	local paths
	IFS=, read -r -a paths <<<"$3"
	git --git-dir="$1" archive "$2" -- "${paths[@]}" | tar -x -C "$4"
}

# inline_content: each `content:` whose one key is a $ref to another file,
# in the files named, replaced by that file's text indented in its place.
inline_content='
use File::Basename; use File::Spec;
for my $f (@ARGV) {
	local $/; open my $in, "<", $f or next; my $s = <$in>; close $in;
	my $dir = dirname($f);
	my $n = $s =~ s{^([ \t]*)content:[ \t]*\n[ \t]*\$ref:[ \t]*["\x27]?([^"\x27\s#]+)["\x27]?[ \t]*$}{
		my ($ind, $ref) = ($1, $2);
		my $p = File::Spec->catfile($dir, $ref);
		my $rdir = dirname($p);
		open my $r, "<", $p or die "$f: $ref: $!";
		my $t = <$r>; close $r;
		$t =~ s{(\$ref:[ \t]*["\x27]?)([^"\x27\s#][^"\x27\s]*)}{$1 . File::Spec->abs2rel(File::Spec->rel2abs(File::Spec->catfile($rdir, $2)), File::Spec->rel2abs($dir))}ge;
		$t =~ s/^(?=.)/$ind  /mg;
		"${ind}content:\n$t"
	}gme;
	if ($n) { open my $out, ">", $f or die "$f: $!"; print $out $s; close $out }
}
'

redocly_plain() { # redocly_plain OLDDIR NEWDIR ROOT: both exported trees, in place
	# A description written as a $ref to a file (Redocly's extension, which
	# DigitalOcean and Dropbox Sign use for tag texts) is no OpenAPI and
	# stops both tools: each side gets a plain string in its place. A $ref
	# within the document is left alone: there `description` is a property
	# whose schema is $ref'd (Plaid's SweepDescription).
	perl -0pi -e 's/(\n[ \t]*description:)[ \t]*\n[ \t]*\$ref:[ \t]*["\x27]?[^#"\x27\s][^\n]*/$1 "(text kept in another file)"/g' "$1/$3" "$2/$3"
	# A media-type map written as a $ref to a file (`content: {$ref:
	# responses/x.yml}`, Redocly's extension, all through Lob's tree) stops
	# oasdiff; contractlint reads it as a bundler does. Each is replaced
	# by the file it names, its own $refs rewritten from there, on both
	# sides for both tools.
	find "$1" "$2" -type f \( -name '*.yml' -o -name '*.yaml' \) -print0 | xargs -0 -r perl -e "$inline_content"
}

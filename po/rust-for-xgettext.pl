#!/usr/bin/perl
# Rewrites a Rust source file (stdin) so that xgettext's C reader extracts its strings as Rust
# means them (stdout), keeping every line on its line so that the references stay right:
#
# - lifetimes and labels ('a, 'static, 'outer:) lose their quote: C would read a character
#   constant that runs to the end of the line and swallow a gettext( call on it;
# - a backslash-newline in a string drops the next line's indentation in Rust but not in C:
#   the string is closed and opened again after the indentation (C joins adjacent literals);
# - raw strings (r"…", r#"…"#) become ordinary C strings with " and \ escaped;
# - \u{…} escapes become the character itself (C's \u takes exactly four digits).
#
# Comments are copied as they are ("// Translators:" comments reach the template).
# usage: rust-for-xgettext.pl <file.rs >file-for-xgettext.rs
use strict;
use warnings;

binmode STDIN, ':encoding(UTF-8)';
binmode STDOUT, ':encoding(UTF-8)';
local $/;
my $src = <STDIN>;
my @c = split //, $src;
my $n = @c;
my $out = '';
my $i = 0;

sub ident_char { my ($ch) = @_; return defined $ch && $ch =~ /[A-Za-z0-9_]/; }

while ($i < $n) {
    my $ch = $c[$i];
    my $next = $i + 1 < $n ? $c[$i + 1] : '';

    # Line comment: copy to the end of the line.
    if ($ch eq '/' && $next eq '/') {
        while ($i < $n && $c[$i] ne "\n") { $out .= $c[$i++]; }
        next;
    }
    # Block comment, nested as in Rust.
    if ($ch eq '/' && $next eq '*') {
        my $depth = 0;
        while ($i < $n) {
            # Only the outermost /* */ stay: C does not nest comments.
            if ($c[$i] eq '/' && $i + 1 < $n && $c[$i + 1] eq '*') {
                $out .= $depth == 0 ? '/*' : '  ';
                $depth++;
                $i += 2;
                next;
            }
            if ($c[$i] eq '*' && $i + 1 < $n && $c[$i + 1] eq '/') {
                $depth--;
                $out .= $depth == 0 ? '*/' : '  ';
                $i += 2;
                last if $depth == 0;
                next;
            }
            $out .= $c[$i++];
        }
        next;
    }
    # Raw string: r"…" or r#…#"…"#…# (also br"…"), not part of a longer identifier.
    my $prev = $i > 0 ? $c[$i - 1] : '';
    my $prev2 = $i > 1 ? $c[$i - 2] : '';
    my $word_start = !ident_char($prev) || ($prev eq 'b' && !ident_char($prev2));
    if ($ch eq 'r' && ($next eq '"' || $next eq '#') && $word_start) {
        my $j = $i + 1;
        my $hashes = 0;
        while ($j < $n && $c[$j] eq '#') { $hashes++; $j++; }
        if ($j < $n && $c[$j] eq '"') {
            my $close = '"' . ('#' x $hashes);
            $j++;
            $out .= ' ' x ($hashes + 1) . '"';
            while ($j < $n && join('', @c[$j .. ($j + length($close) - 1 < $n ? $j + length($close) - 1 : $n - 1)]) ne $close) {
                my $r = $c[$j++];
                if ($r eq '"' || $r eq '\\') { $out .= "\\$r"; }
                elsif ($r eq "\n") { $out .= "\\n\"\n\""; }
                else { $out .= $r; }
            }
            $out .= '"' . (' ' x $hashes);
            $i = $j + length($close);
            next;
        }
    }
    # Ordinary string.
    if ($ch eq '"') {
        $out .= '"';
        $i++;
        while ($i < $n && $c[$i] ne '"') {
            if ($c[$i] eq '\\' && $i + 1 < $n) {
                my $e = $c[$i + 1];
                if ($e eq "\n") {
                    # Continuation: Rust skips the newline and the whitespace after it.
                    $out .= "\"\n";
                    $i += 2;
                    while ($i < $n && $c[$i] =~ /\s/) { $out .= $c[$i++]; }
                    $out .= '"';
                    next;
                }
                if ($e eq 'u' && $i + 2 < $n && $c[$i + 2] eq '{') {
                    my $k = $i + 3;
                    my $hex = '';
                    while ($k < $n && $c[$k] ne '}') { $hex .= $c[$k++]; }
                    $out .= chr(hex($hex));
                    $i = $k + 1;
                    next;
                }
                $out .= '\\' . $e;
                $i += 2;
                next;
            }
            $out .= $c[$i++];
        }
        $out .= '"' if $i < $n;
        $i++;
        next;
    }
    # A quote: a character literal ('x', '\n', '\'', '"') or a lifetime/label ('a, 'static).
    if ($ch eq "'") {
        if ($next eq '\\') {
            my $j = $i + 3;
            $j++ while $j < $n && $c[$j] ne "'";
            $out .= join('', @c[$i .. $j]);
            $i = $j + 1;
            next;
        }
        if ($i + 2 < $n && $c[$i + 2] eq "'") {
            $out .= join('', @c[$i .. $i + 2]);
            $i += 3;
            next;
        }
        $out .= ' ';
        $i++;
        next;
    }
    $out .= $ch;
    $i++;
}
print $out;

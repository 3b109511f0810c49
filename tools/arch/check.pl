#!/usr/bin/perl
# The host's side of tools/test-arch: reads what the emulated machine left in OUT and checks it.
#
#   check.pl tests ARCH OUT CARDS HOST-CLI UNAME IO-PATH STRICT
#   check.pl app ARCH OUT SCREENSHOT
#
# `tests` prints the test programs' output (OUT/tests.log, libtest's lines), then each check as
# a libtest line (`test arch::NAME ... ok|FAILED`) and a `test result:` line for them, and last
# `N passed, M failed` over both. A test program that ended without its `test result:` line or
# with a non-zero status counts as a failure; with STRICT=1 an ignored test does too. Exits 1
# when M > 0.
#
# `app` checks that the app showed its window and copies the screenshot out.
use strict;
use warnings;
use JSON::PP;
use File::Copy qw(copy);

my $mode = shift // '';
my @checks;    # [name, ok, detail]

sub slurp {
    my ($path) = @_;
    open my $fh, '<:raw', $path or return undef;
    local $/;
    return scalar <$fh>;
}

sub check {
    my ($name, $ok, $detail) = @_;
    push @checks, [$name, $ok ? 1 : 0, $detail // ''];
}

sub json_file {
    my ($path) = @_;
    my $text = slurp($path) // return undef;
    return eval { decode_json($text) };
}

sub print_checks {
    my ($arch) = @_;
    my ($ok, $bad) = (0, 0);
    print "\nrunning " . scalar(@checks) . " checks on $arch\n";
    for my $c (@checks) {
        my ($name, $pass, $detail) = @$c;
        print "test arch::$name ... " . ($pass ? 'ok' : 'FAILED') . "\n";
        print "    $detail\n" if $detail ne '' && !$pass;
        $pass ? $ok++ : $bad++;
    }
    printf "\ntest result: %s. %d passed; %d failed; 0 ignored; 0 measured; 0 filtered out\n",
        $bad ? 'FAILED' : 'ok', $ok, $bad;
    return ($ok, $bad);
}

if ($mode eq 'app') {
    my ($arch, $out, $shot) = @ARGV;
    my $log = slurp("$out/app.log") // '';
    print $log;
    my $window = $log =~ /^app: window shown: (.+)$/m;
    check('app_window_shown', $window, 'the app did not map a window under Xvfb (see app.log above)');
    my $png = slurp("$out/screenshot.png") // '';
    my $is_png = substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n";
    check('app_screenshot', $is_png, 'no PNG screenshot came back');
    copy("$out/screenshot.png", $shot) or die "copy to $shot: $!\n" if $is_png;
    print "screenshot: $shot\n" if $is_png;
    my ($ok, $bad) = print_checks($arch);
    print "$ok passed, $bad failed\n";
    exit($bad ? 1 : 0);
}

die "usage: check.pl tests|app ...\n" unless $mode eq 'tests';
my ($arch, $out, $cards, $host_cli, $uname, $io_path, $strict) = @ARGV;

# --- The test programs.
my $log = slurp("$out/tests.log") // '';
print $log;
my ($passed, $failed, $ignored) = (0, 0, 0);
while ($log =~ /^test result: \S+ (\d+) passed; (\d+) failed; (\d+) ignored;/mg) {
    $passed += $1;
    $failed += $2;
    $ignored += $3;
}
my $programs = 0;
for my $line (split /\n/, slurp("$out/tests.rc") // '') {
    my ($exe, $rc, $results) = split ' ', $line;
    $programs++;
    if ($rc ne '0' && !$results) {
        print "tools/test-arch: $exe ended with status $rc before its test result line\n";
        $failed++;
    }
}
check('test_programs_ran', $programs > 0, 'no test program ran (see the console log)');

# --- uname -m.
my $machine = slurp("$out/uname") // '';
chomp $machine;
check('uname_m', $machine eq $uname, "uname -m said '$machine', expected '$uname'");
print "uname -m inside: $machine\n";

# --- The card command on every fixture, against this machine's build.
for my $tree (sort glob "$cards/*") {
    my ($id) = $tree =~ m{([^/]+)$};
    my $rc = slurp("$out/card/$id.rc") // 'none';
    chomp $rc;
    my $arm = slurp("$out/card/$id.json") // '';
    my $host = `"$host_cli" card --device mmcblk0 --sysfs-root "$tree" --json 2>/dev/null`;
    # The same tree is at /mnt/payload/cards/<id> inside.
    $arm =~ s{/mnt/payload/cards/}{CARDS/}g;
    $host =~ s{\Q$cards\E/}{CARDS/}g;
    my $name = "card_$id";
    $name =~ tr/-/_/;
    check($name, $rc eq '0' && $arm ne '' && $arm eq $host,
        $rc ne '0' ? "card exited $rc: " . (slurp("$out/card/$id.err") // '')
        : "its JSON differs from the x86_64 build's");
}

# --- The real runs: quick with each engine.
my %run;
for my $engine (qw(native fio)) {
    my $rc = slurp("$out/quick-$engine.rc") // 'none';
    chomp $rc;
    my $doc = json_file("$out/quick-$engine.json");
    my $err = slurp("$out/quick-$engine.err") // '';
    my @phases = $doc && $doc->{runs} && @{ $doc->{runs} } ? @{ $doc->{runs}[0]{phases} } : ();
    my $moved = @phases && !grep { !$_->{bytes} } @phases;
    check("quick_run_$engine", $rc eq '0' && $doc && !$doc->{error} && $moved,
        "exit $rc; error: " . ($doc && $doc->{error} ? encode_json($doc->{error}) : 'none')
        . "; stderr: $err");
    $run{$engine} = { doc => $doc, phases => \@phases };
}
my $native = $run{native}{doc};
my $got_path = $native ? ($native->{io_path} // '') : '';
check('native_io_path', $got_path eq $io_path, "the native engine used '$got_path', expected '$io_path'");
my $fio = $run{fio}{doc};
my $fio_path = $fio ? ($fio->{io_path} // '') : '';
check('fio_engine_ran', $fio && ($fio->{engine} // '') eq 'fio' && $fio_path =~ /^fio /,
    "engine " . ($fio ? $fio->{engine} // '' : 'none') . ", io_path '$fio_path'");
my @np = @{ $run{native}{phases} };
my @fp = @{ $run{fio}{phases} };
my $shape = sub { join ',', map { "$_->{name}:$_->{rw}:$_->{bs}" } @_ };
check('engines_same_phases', @np && $shape->(@np) eq $shape->(@fp),
    'native: ' . $shape->(@np) . '; fio: ' . $shape->(@fp));
print "quick, $arch, emulated (figures are the emulator's, not a card's):\n";
for my $i (0 .. $#np) {
    my ($n, $f) = ($np[$i], $fp[$i]);
    next unless $f;
    printf "  %-16s native %9.2f MB/s %8d IOPS  fio %9.2f MB/s %8d IOPS  ratio %.2f\n",
        $n->{name}, $n->{bw_bytes} / 1e6, $n->{iops}, $f->{bw_bytes} / 1e6, $f->{iops},
        $f->{bw_bytes} ? $n->{bw_bytes} / $f->{bw_bytes} : 0;
}

# --- The standard test, once: upstream's compat lines.
my $std = slurp("$out/standard.txt") // '';
my $std_rc = slurp("$out/standard.rc") // 'none';
chomp $std_rc;
my @compat = grep { /^(Sequential write speed \d+ KB\/sec|Random (write|read) speed \d+ IOPS) \(target \d+\) - (PASS|FAIL)$/ }
    split /\n/, $std;
check('standard_run_compat_lines', ($std_rc eq '0' || $std_rc eq '1') && @compat == 3,
    "exit $std_rc; stderr: " . (slurp("$out/standard.err") // ''));
print "compat lines of the standard test, $arch, emulated:\n";
print "  $_\n" for @compat;

my ($ok, $bad) = print_checks($arch);
my $total_ok = $passed + $ok;
my $total_bad = $failed + $bad;
print "\n$arch: test programs $passed passed, $failed failed, $ignored ignored; checks $ok passed, $bad failed\n";
if ($ignored && $strict eq '1') {
    print "tools/test-arch: AGNOSTICS_STRICT=1 and $ignored ignored: counted as failed\n";
    $total_bad += $ignored;
}
print "$total_ok passed, $total_bad failed\n";
exit($total_bad ? 1 : 0);

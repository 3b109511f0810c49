#!/usr/bin/perl
# Checks what the emulated Raspberry Pi printed (tools/test-pi): reads the "@@AGN BEGIN name" /
# base64 / "@@AGN END name" blocks of the machine's console logs, compares them with what this
# machine should show, prints each check as a libtest line ("test NAME ... ok" or "FAILED"
# with the reason), libtest's "test result:" line and, last, "N passed, M failed". Exit status
# 1 when any check failed.
#
#   check.pl MACHINE MAIN-LOG CAPACITY-LOG CARD-FIXTURE COMPARED FIO(0|1) UNAME MODEL IO_PATH CLI
# (COMPARED: a file that says "identical", or what cmp said of the image before and after capacity)
use strict;
use warnings;
use JSON::PP;
use MIME::Base64;

my ($machine, $main_log, $cap_log, $fixture, $compared_file, $fio, $uname, $model, $io_path, $cli) = @ARGV;
my ($passed, $failed) = (0, 0);
my $start = time;

sub check {
    my ($name, $ok, $why) = @_;
    if ($ok) {
        print "test pi_${machine}_$name ... ok\n";
        $passed++;
    } else {
        print "test pi_${machine}_$name ... FAILED\n";
        print "    $_\n" for split /\n/, ($why // '');
        $failed++;
    }
}

sub slurp {
    my ($path) = @_;
    open my $f, '<', $path or return undef;
    local $/;
    return scalar <$f>;
}

# The blocks of one console log: name -> content.
sub blocks {
    my ($path) = @_;
    my %found;
    my $text = slurp($path) // '';
    $text =~ s/\r//g;
    my ($name, $data);
    for my $line (split /\n/, $text) {
        if ($line =~ /\@\@AGN BEGIN (\S+)$/) {
            ($name, $data) = ($1, '');
        } elsif (defined $name && $line =~ /\@\@AGN END \Q$name\E$/) {
            $found{$name} = decode_base64($data);
            undef $name;
        } elsif (defined $name && $line =~ m{^[A-Za-z0-9+/=]+$}) {
            $data .= $line;
        }
    }
    $found{DONE} = 1 if $text =~ /\@\@AGN DONE$/m;
    return \%found;
}

sub trim { my ($s) = @_; $s //= ''; $s =~ s/^\s+|\s+$//g; return $s }
my $json = JSON::PP->new->canonical->pretty;
sub doc { my ($text) = @_; return eval { decode_json($text // '') } }

# The first lines that differ between two JSON documents, pretty-printed.
sub json_diff {
    my ($want, $got) = @_;
    my @w = split /\n/, $json->encode($want);
    my @g = split /\n/, ($got ? $json->encode($got) : '(not JSON)');
    my @out;
    for my $i (0 .. ($#w > $#g ? $#w : $#g)) {
        my ($a, $b) = ($w[$i] // '', $g[$i] // '');
        next if $a eq $b;
        push @out, "line " . ($i + 1) . ": want $a", "         got  $b";
        last if @out >= 8;
    }
    return join "\n", @out;
}

my $main = blocks($main_log);
my $cap = blocks($cap_log);
my $want_card = doc(slurp($fixture));
die "check.pl: $fixture is not JSON\n" unless $want_card;

check('boot_main', $main->{DONE}, "the machine did not finish (see $main_log)");
check('uname', trim($main->{uname}) eq $uname, "uname -m said '" . trim($main->{uname}) . "', want $uname");
check('model', trim($main->{model}) eq $model, "the model is '" . trim($main->{model}) . "', want '$model'");
check('mmcblk0', ($main->{dev} // '') =~ m{/dev/mmcblk0\n.*/dev/mmcblk0p1}s, "no /dev/mmcblk0 and p1: " . ($main->{dev} // ''));
print "pi-$machine: inside: " . trim($main->{uname}) . ", " . trim($main->{model}) . "\n";

my $card = doc($main->{'card.out'});
check('card_json', trim($main->{'card.rc'}) eq '0' && $card && $json->encode($card) eq $json->encode($want_card),
    "exit " . trim($main->{'card.rc'}) . "; " . trim($main->{'card.err'}) . "\n" . json_diff($want_card, $card));
if ($card) {
    printf "pi-%s: card %s: product \"%s\", %s, link %s\n", $machine, $card->{device} // '?',
        $card->{cid}{pnm} // '?', $card->{csd}{version} ? "CSD $card->{csd}{version}" : '', $card->{link}{name} // '?';
}
my $targets = $main->{'targets.out'} // '';
check('targets', trim($main->{'targets.rc'}) eq '0' && $targets =~ /mmcblk0/ && $targets =~ /QEMU!/,
    "exit " . trim($main->{'targets.rc'}) . ": $targets" . trim($main->{'targets.err'}));
print "pi-$machine: targets: $_\n" for grep { /mmcblk0/ } split /\n/, $targets;

# ARMv6 (raspi0): the CLI is ARMv6 code (the armhf package's), and the app's launcher says in
# words that the app needs a Pi 2 or later and agnostics-cli works here.
if ($machine eq 'raspi0') {
    my ($cpu) = `readelf -A '$cli' 2>&1` =~ /Tag_CPU_arch: (\S+)/;
    check('cli_is_armv6', ($cpu // '') eq 'v6', "readelf -A $cli: Tag_CPU_arch " . ($cpu // 'none'));
    my $said = $main->{'launcher.err'} // '';
    check('app_launcher_says_pi2', trim($main->{'launcher.rc'}) eq '1' && $said =~ /Raspberry Pi 2 or later/ && $said =~ /agnostics-cli run/,
        "exit " . trim($main->{'launcher.rc'}) . ": $said");
    print "pi-$machine: the app on ARMv6: $said";
}

# A run: exit 0, no error, every phase moved data; its figures printed.
sub run_check {
    my ($name, $want_path) = @_;
    my $doc = doc($main->{"$name.out"});
    my $rc = trim($main->{"$name.rc"});
    my @phases = $doc && $doc->{runs} && @{ $doc->{runs} } ? @{ $doc->{runs}[0]{phases} } : ();
    my $moved = @phases == 5 && !grep { !$_->{bytes} } @phases;
    my $path = $doc ? ($doc->{io_path} // '') : '';
    check("run_$name", $rc eq '0' && $doc && !$doc->{error} && $moved && $path =~ $want_path,
        "exit $rc; io_path '$path'; " . scalar(@phases) . " phases; error: "
        . ($doc && $doc->{error} ? encode_json($doc->{error}) : 'none') . "; stderr: " . trim($main->{"$name.err"}));
    for my $p (@phases) {
        printf "pi-%s: %s %-14s %8.2f MB/s %8.0f IOPS (%s)\n", $machine, $name, $p->{name},
            ($p->{bw_bytes} // 0) / 1e6, $p->{iops} // 0, $path;
    }
}
run_check('native', qr/^\Q$io_path\E$/);
# Finding: a system whose /run has no lock folder: the run makes it and does not warn.
my $err = $main->{'native.err'} // '';
check('lock_folder_made',
    trim($main->{'lock-before'}) eq 'absent' && trim($main->{'lock-after'}) =~ /^drwxrwxrwt 0$/
        && $err !~ /could not tell whether another test/,
    "/run/lock before: " . trim($main->{'lock-before'}) . "; after: " . trim($main->{'lock-after'}) . "; stderr: $err");
if ($fio) {
    run_check('fio', qr/^fio /);
    # Finding: fio's exec_prerun hook cannot run without /bin/sh; the error names the hook.
    my $nosh = ($main->{'fio-nosh.out'} // '') . ($main->{'fio-nosh.err'} // '');
    check('fio_hook_named', trim($main->{'fio-nosh.rc'}) ne '0' && $nosh =~ /exec_prerun/ && $nosh =~ m{/bin/sh}
        && $nosh !~ /clat_ns\.percentile/, "exit " . trim($main->{'fio-nosh.rc'}) . ": $nosh");
}

check('boot_capacity', $cap->{DONE}, "the machine did not finish (see $cap_log)");
# Finding: card with nothing mounted and no /var/tmp finds the one SD card.
my $card2 = doc($cap->{'card-unmounted.out'});
check('card_without_var_tmp', trim($cap->{'card-unmounted.rc'}) eq '0' && $card2
        && $json->encode($card2) eq $json->encode($want_card),
    "exit " . trim($cap->{'card-unmounted.rc'}) . "; " . trim($cap->{'card-unmounted.err'}) . "\n" . json_diff($want_card, $card2));
# health on a card with no health report (qemu's: maker 0xAA, no CMD56 format known): it says
# so, judges nothing ("unknown", exit 0) and writes nothing.
my $health = doc($cap->{'health-json.out'});
my $sd_health = $health && ref $health->{sd_health} eq 'HASH' ? $health->{sd_health} : {};
check('health_json',
    trim($cap->{'health-json.rc'}) eq '0' && $health && ($health->{device} // '') eq 'mmcblk0'
        && ($health->{kind} // '') eq 'SD' && ($health->{verdict} // '') eq 'unknown'
        && ($sd_health->{status} // '') eq 'unknown_maker' && ($sd_health->{mid} // -1) == 0xAA
        && !defined $health->{emmc_wear} && !defined $health->{found_fake} && !defined $health->{trend}
        && ($health->{history_runs} // -1) == 0,
    "exit " . trim($cap->{'health-json.rc'}) . "; stderr: " . trim($cap->{'health-json.err'}) . "\n"
        . ($health ? $json->encode($health) : ($cap->{'health-json.out'} // '')));
my $health_text = $cap->{'health.out'} // '';
check('health_text', trim($cap->{'health.rc'}) eq '0' && $health_text =~ /maker has no known health report/
        && $health_text =~ /Health: unknown/,
    "exit " . trim($cap->{'health.rc'}) . ": $health_text" . trim($cap->{'health.err'}));
print "pi-$machine: health: $_\n" for grep { /\S/ } split /\n/, $health_text;
my ($written_before, $written_after) = split ' ', trim($cap->{'health-written'});
# The files newer than a mark made just before health, listed before it ran and after.
my %was = map { $_ => 1 } split /\n/, ($cap->{'health-newer-before'} // '');
my @touched = grep { !$was{$_} } split /\n/, ($cap->{'health-newer-after'} // '');
check('health_writes_nothing', defined $written_after && $written_before eq $written_after
        && defined $cap->{'health-newer-after'} && !@touched,
    "sectors written to mmcblk0 before and after: " . trim($cap->{'health-written'})
        . "; files made or changed: " . join(' ', @touched));
my $cap_out = $cap->{'capacity.out'} // '';
check('capacity_genuine', trim($cap->{'capacity.rc'}) eq '0',
    "exit " . trim($cap->{'capacity.rc'}) . ": $cap_out" . ($cap->{'capacity.err'} // ''));
print "pi-$machine: capacity: $_\n" for grep { /\S/ } split /\n/, $cap_out;
my $compared = trim(slurp($compared_file));
check('capacity_image_unchanged', $compared eq 'identical', "the card's image before and after capacity: $compared");

printf "test result: %s. %d passed; %d failed; 0 ignored; 0 measured; 0 filtered out; finished in %ds\n",
    $failed ? 'FAILED' : 'ok', $passed, $failed, time - $start;
print "$passed passed, $failed failed\n";
exit($failed ? 1 : 0);

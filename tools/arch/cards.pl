#!/usr/bin/perl
# tools/arch/cards.pl FIXTURES OUT: writes each card fixture FIXTURES/<id>.json (its "sysfs"
# object of file name => contents) as the sysfs tree OUT/<id>/block/mmcblk0/device/<name>,
# each file ending in a newline as sysfs' do, for `agnostics-cli card --sysfs-root OUT/<id>`.
use strict;
use warnings;
use JSON::PP;
use File::Path qw(make_path);

my ($fixtures, $out) = @ARGV;
die "usage: cards.pl FIXTURES OUT\n" unless defined $out;
for my $file (sort glob "$fixtures/*.json") {
    my ($id) = $file =~ m{([^/]+)\.json$};
    open my $fh, '<:raw', $file or die "$file: $!\n";
    my $doc = decode_json(do { local $/; <$fh> });
    my $sysfs = $doc->{sysfs} or die "$file: no sysfs object\n";
    my $device = "$out/$id/block/mmcblk0/device";
    make_path($device);
    for my $name (keys %$sysfs) {
        open my $w, '>:raw', "$device/$name" or die "$device/$name: $!\n";
        print $w "$sysfs->{$name}\n";
        close $w or die "$device/$name: $!\n";
    }
}

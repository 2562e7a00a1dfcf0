#!/usr/bin/env cwl-runner
# kmerbloom filter as a CWL tool: the reads worth giving to an assembler
# (digital normalization, weak k-mer dropping or trimming), in input order.
# No JavaScript (runs without node.js).
#   cwltool --no-container kmerbloom-filter.cwl filter-example.yml
cwlVersion: v1.2
class: CommandLineTool
label: kmerbloom filter
doc: |
  Single-end reads: give `reads`. Pairs in two files: `reads` and `reads2`,
  and name the second output with `kept2`. Interleaved pairs: `reads` with
  `interleaved: true` (give `kept2` to split the mates). A kept record is
  written byte for byte as read, in the input's format (name the outputs .fa.gz
  for FASTA input). ram_mb is the job's RAM request; the abundance sketch is
  capped at sketch_mb (filter's -M), which must stay below it.
baseCommand: [kmerbloom, filter]
hints:
  SoftwareRequirement:
    packages:
      kmerbloom:
        version: ["0.1.0"]
requirements:
  ResourceRequirement:
    coresMin: $(inputs.threads)
    ramMin: $(inputs.ram_mb)
inputs:
  reads:
    type: File
    inputBinding: {position: 10}
  reads2:
    type: File?
    doc: mate 2 reads, in the same order as reads
    inputBinding: {position: 11}
  interleaved:
    type: boolean
    default: false
    inputBinding: {prefix: --interleaved}
  kept:
    type: string
    default: kept.fq.gz
    doc: name of the kept reads (mate 1 when kept2 is given); .gz is written gzip
    inputBinding: {prefix: --output}
  kept2:
    type: string?
    doc: name of the kept mate 2 reads
    inputBinding: {prefix: --output2}
  k:
    type: int
    default: 31
    inputBinding: {prefix: -k}
  target_coverage:
    type: int
    default: 20
    inputBinding: {prefix: --target-coverage}
  no_normalize:
    type: boolean
    default: false
    doc: no digital normalization (with drop_weak or trim_weak)
    inputBinding: {prefix: --no-normalize}
  drop_weak:
    type: boolean
    default: false
    inputBinding: {prefix: --drop-weak}
  trim_weak:
    type: boolean
    default: false
    inputBinding: {prefix: --trim-weak}
  min_count:
    type: int?
    doc: weak k-mers occur fewer times than this (default 2); only with drop_weak or trim_weak
    inputBinding: {prefix: --min-count}
  threads:
    type: int
    default: 2
    inputBinding: {prefix: --threads}
  sketch_mb:
    type: int
    default: 1024
    doc: upper bound on the abundance sketch, MiB (filter's -M)
    inputBinding: {prefix: --max-memory, valueFrom: $(self)M}
  ram_mb:
    type: int
    default: 1300
    doc: RAM of the job in MiB (sketch, read buffers of 16 MiB a thread, 100 MiB more)
arguments:
  - {prefix: --stats, valueFrom: filter.json}
outputs:
  kept_reads:
    type: File
    outputBinding: {glob: $(inputs.kept)}
  kept_reads2:
    type: File?
    outputBinding: {glob: $(inputs.kept2)}
  stats:
    type: File
    outputBinding: {glob: filter.json}

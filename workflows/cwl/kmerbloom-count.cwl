#!/usr/bin/env cwl-runner
# kmerbloom count as a CWL tool: solid k-mers, histogram, statistics and the
# MultiQC custom content of one sample. No JavaScript (runs without node.js).
#   cwltool --no-container kmerbloom-count.cwl count-example.yml
cwlVersion: v1.2
class: CommandLineTool
label: kmerbloom count
doc: |
  Counts the canonical k-mers of FASTA/FASTQ reads (plain, gzip or BGZF) and
  reports the solid ones (seen at least min_count times) with exact counts,
  sorted by k-mer, plus a jellyfish-style histogram, JSON statistics and two
  MultiQC custom content files (general statistics with genome size, k-mer
  coverage and error share; the spectrum as a line plot). Memory: ram_mb is
  both the job's RAM request and count's -M budget; count stops before
  counting (exit 5) when its own plan does not fit, saying what it needs.
baseCommand: [kmerbloom, count]
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
    type: File[]
    doc: FASTA/FASTQ files of the sample, read as one input
    inputBinding: {position: 10}
  sample:
    type: string
    default: sample
    doc: names the outputs (SAMPLE.solid.tsv.gz ...) and the sample in MultiQC
  k:
    type: int
    default: 31
    inputBinding: {prefix: -k}
  min_count:
    type: int
    default: 2
    inputBinding: {prefix: --min-count}
  histo_max:
    type: int
    default: 10000
    inputBinding: {prefix: --histo-max}
  partition:
    type: string?
    doc: "I/N: count only partition I of N (gather the N outputs with kmerbloom merge-counts)"
    inputBinding: {prefix: --partition}
  threads:
    type: int
    default: 2
    inputBinding: {prefix: --threads}
  ram_mb:
    type: int
    default: 2000
    doc: RAM of the job in MiB, passed to count as -M
    inputBinding: {prefix: --max-memory, valueFrom: $(self)M}
arguments:
  - {prefix: --output, valueFrom: $(inputs.sample).solid.tsv.gz}
  - {prefix: --histo, valueFrom: $(inputs.sample)_jf.hist}
  - {prefix: --stats, valueFrom: $(inputs.sample).stats.json}
  - {prefix: --sample, valueFrom: $(inputs.sample)}
  - --no-progress
outputs:
  solid:
    type: File
    doc: KMER<TAB>COUNT lines, sorted by k-mer, gzip
    outputBinding: {glob: $(inputs.sample).solid.tsv.gz}
  histogram:
    type: File
    doc: jellyfish histo form (COUNT FREQUENCY); MultiQC's jellyfish module reads *_jf.hist
    outputBinding: {glob: $(inputs.sample)_jf.hist}
  stats:
    type: File
    outputBinding: {glob: $(inputs.sample).stats.json}
  multiqc:
    type: File[]
    doc: SAMPLE.stats_mqc.json and SAMPLE.stats_spectrum_mqc.json, read by `multiqc .`
    outputBinding: {glob: $(inputs.sample).stats*_mqc.json}

#!/usr/bin/env cwl-runner
# kmerbloom hetmers as a CWL tool: the het-mer pairs of one sample's k-mer
# counts, binned for smudgeplot, with statistics and MultiQC custom content.
# No JavaScript (runs without node.js).
#   cwltool --no-container kmerbloom-hetmers.cwl job.yml
cwlVersion: v1.2
class: CommandLineTool
label: kmerbloom hetmers
doc: |
  Finds the pairs of k-mers that differ at one base and are in no other such
  pair (het-mers) among the counts of one sample (kmerbloom count output, TSV
  or KFF, plain or gzip; k up to 31), as smudgeplot's search defines them, and
  writes SAMPLE.smu, the flat 2-D histogram smudgeplot's plot step reads
  (`smudgeplot all SAMPLE.smu`), JSON statistics with the ploidy the densest
  smudge suggests, and a MultiQC general statistics file. L defaults to
  smudgeplot's choice from the file's histogram. ram_mb is both the job's RAM
  request and the -M budget of the search.
baseCommand: [kmerbloom, hetmers]
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
  counts:
    type: File
    doc: k-mer counts of the sample (kmerbloom count, merge-counts, kmc -okff)
    inputBinding: {position: 10}
  sample:
    type: string
    default: sample
    doc: names the outputs (SAMPLE.smu ...) and the sample in MultiQC
  lower:
    type: int?
    doc: lowest count searched (default smudgeplot's choice from the histogram)
    inputBinding: {prefix: --lower}
  upper:
    type: string?
    doc: highest count searched, or "quantile" (default 1000 - L)
    inputBinding: {prefix: --upper}
  pairs:
    type: boolean
    default: false
    doc: also write SAMPLE.pairs.tsv (KMER COUNT KMER COUNT per unique pair)
    inputBinding: {prefix: --pairs}
  threads:
    type: int
    default: 2
    inputBinding: {prefix: --threads}
  ram_mb:
    type: int
    default: 2000
    doc: RAM of the job in MiB, passed to hetmers as -M
    inputBinding: {prefix: --max-memory, valueFrom: $(self)M}
arguments:
  - {prefix: --output, valueFrom: $(inputs.sample)}
  - {prefix: --stats, valueFrom: $(inputs.sample).hetmers.json}
  - {prefix: --sample, valueFrom: $(inputs.sample)}
outputs:
  smu:
    type: File
    doc: MINOR<TAB>MAJOR<TAB>PAIRS per bin, smudgeplot's .smu file
    outputBinding: {glob: $(inputs.sample).smu}
  pair_list:
    type: File?
    outputBinding: {glob: $(inputs.sample).pairs.tsv}
  stats:
    type: File
    outputBinding: {glob: $(inputs.sample).hetmers.json}
  multiqc:
    type: File
    doc: SAMPLE.hetmers_mqc.json, read by `multiqc .`
    outputBinding: {glob: $(inputs.sample).hetmers_mqc.json}

#!/usr/bin/env cwl-runner
# kmerbloom profile as a CWL tool: the genome profile (haploid length,
# heterozygosity, repeats, read error rate, k-mer coverage) fitted to a k-mer
# histogram or count statistics, with the plot and a MultiQC custom content
# file. No JavaScript (runs without node.js).
#   cwltool --no-container kmerbloom-profile.cwl job.yml
cwlVersion: v1.2
class: CommandLineTool
label: kmerbloom profile
doc: |
  Fits GenomeScope 2.0's model (negative binomials at the copy numbers 1..2p
  of the k-mer coverage, ploidy p from 1 to 6, two-copy repeats and an error
  term) to the spectrum of kmerbloom count --stats (k read from it) or to a
  histogram in jellyfish histo form (give k). A spectrum the model cannot
  describe gets a verdict in the summary and null figures, not numbers.
baseCommand: [kmerbloom, profile]
hints:
  SoftwareRequirement:
    packages:
      kmerbloom:
        version: ["0.1.0"]
requirements:
  ResourceRequirement:
    coresMin: 1
    ramMin: 200
inputs:
  spectrum:
    type: File
    doc: count --stats JSON, or a histogram (COUNT FREQUENCY rows)
    inputBinding: {position: 10}
  k:
    type: int?
    doc: k-mer length (required with a histogram file)
    inputBinding: {prefix: -k}
  ploidy:
    type: int
    default: 2
    inputBinding: {prefix: --ploidy}
  sample:
    type: string
    default: sample
    doc: prefix of the output files; also the sample name in MultiQC
arguments:
  - {prefix: --output, valueFrom: $(inputs.sample).profile.txt}
  - {prefix: --stats, valueFrom: $(inputs.sample).profile.json}
  - {prefix: --plot, valueFrom: $(inputs.sample).profile.svg}
  - {prefix: --report, valueFrom: $(inputs.sample).profile.html}
  - {prefix: --sample, valueFrom: $(inputs.sample)}
outputs:
  summary:
    type: File
    doc: GenomeScope's summary layout (property, min, max)
    outputBinding: {glob: $(inputs.sample).profile.txt}
  stats:
    type: File
    outputBinding: {glob: $(inputs.sample).profile.json}
  plot:
    type: File
    doc: the spectrum with the fitted model and its copy numbers, linear and log
    outputBinding: {glob: $(inputs.sample).profile.svg}
  report:
    type: File
    doc: a self-contained HTML page of the figures (each het form's share at ploidy 3 and up) and the plot
    outputBinding: {glob: $(inputs.sample).profile.html}
  multiqc:
    type: File
    doc: SAMPLE.profile_mqc.json, read by `multiqc .`
    outputBinding: {glob: $(inputs.sample).profile_mqc.json}

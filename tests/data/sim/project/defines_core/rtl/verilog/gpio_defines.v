// Options of the core, OpenCores style: every module file includes this one.
`define GPIO_WIDTH 8
`define GPIO_HAS_IRQ

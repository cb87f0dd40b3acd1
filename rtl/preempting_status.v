// Preempting kernel's allocation status and kernel register (SPEC 4), Verilog twin of
// modules/extensions/dual_kernel_tables.*'s PreemptingAllocationStatus and its pin view: per
// position an allocated bit and the TB slot placed there; the preempting kernel's process and
// kernel id. Operations: read, allocate, release, set_kernel. The response is the addressed
// position after the operation (outputs hold for a position outside the table) and the kernel's
// ids; latency 1 cycle. Allocating an allocated position, a position, slot or id wider than the
// table or its field: resp_error, nothing changes.
/* verilator lint_off WIDTH */
module preempting_status #(
    parameter K = 16,    // positions
    parameter SB = 5,    // TB slot bits: ceil(log2 P)
    parameter PIDB = 15, // process id bits
    parameter KIDB = 5   // kernel id bits
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,   // 0 read, 1 allocate, 2 release, 3 set_kernel
    input  wire [7:0]  req_pos,
    input  wire [7:0]  req_slot,
    input  wire [15:0] req_pid,
    input  wire [7:0]  req_kernel,
    output reg         resp_valid,
    output reg         resp_error,
    output reg         resp_allocated,
    output reg  [7:0]  resp_slot,
    output reg  [15:0] resp_pid,
    output reg  [7:0]  resp_kernel
);
  reg          alloc [0:K-1];
  reg [SB-1:0] slot  [0:K-1];
  reg [PIDB-1:0] pid;
  reg [KIDB-1:0] kid;
  integer i;
  wire pos_ok = req_pos < K;
  reg err;
  always @(*) begin
    case (req_op)
      2'd0, 2'd2: err = !pos_ok;
      2'd1: err = !pos_ok || alloc[req_pos] || (req_slot >> SB) != 0;
      default: err = (req_pid >> PIDB) != 0 || (req_kernel >> KIDB) != 0;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < K; i = i + 1) begin
        alloc[i] <= 1'b0;
        slot[i] <= {SB{1'b0}};
      end
      pid <= {PIDB{1'b0}};
      kid <= {KIDB{1'b0}};
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_allocated <= 1'b0;
      resp_slot <= 8'd0;
      resp_pid <= 16'd0;
      resp_kernel <= 8'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err && req_op == 2'd1) begin
          alloc[req_pos] <= 1'b1;
          slot[req_pos] <= req_slot[SB-1:0];
        end
        if (!err && req_op == 2'd2) alloc[req_pos] <= 1'b0;
        if (!err && req_op == 2'd3) begin
          pid <= req_pid[PIDB-1:0];
          kid <= req_kernel[KIDB-1:0];
        end
        if (pos_ok) begin  // the position after the operation
          if (!err && req_op == 2'd1) begin
            resp_allocated <= 1'b1;
            resp_slot <= req_slot;
          end else if (!err && req_op == 2'd2) begin
            resp_allocated <= 1'b0;
            resp_slot <= 8'd0;
          end else begin
            resp_allocated <= alloc[req_pos];
            resp_slot <= alloc[req_pos] ? slot[req_pos] : 8'd0;
          end
        end
        resp_pid <= (!err && req_op == 2'd3) ? req_pid : pid;
        resp_kernel <= (!err && req_op == 2'd3) ? req_kernel : kid;
      end
    end
  end
endmodule

// Running-TB status (SPEC 4), Verilog twin of modules/extensions/dual_kernel_tables.*'s
// RunningTbStatus and its pin view: per TB slot (T of them) the warp instructions it executed
// (IB bits), the cycle it was issued (CB bits) and whether it may still be flushed (idempotent so
// far). Operations: 0 read(slot); 1 start(slot, value = issue cycle, idempotent): the count
// clears; 2 executed(slot, value = instructions to add); 3 lost_idempotence(slot). The response
// is the slot's entry after the operation; latency 1 cycle. A slot >= T, a cycle wider than CB
// bits, a count that would exceed IB bits: resp_error, nothing changes.
/* verilator lint_off WIDTH */
module running_tb_status #(
    parameter T = 16,   // TB slots per SM
    parameter IB = 32,  // executed-instruction count bits
    parameter CB = 32   // issue-cycle bits
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,   // 0 read, 1 start, 2 executed, 3 lost_idempotence
    input  wire [7:0]  req_slot,
    input  wire [63:0] req_value,
    input  wire        req_idempotent,
    output reg         resp_valid,
    output reg         resp_error,
    output reg  [63:0] resp_executed,
    output reg  [63:0] resp_cycle,
    output reg         resp_flush
);
  reg [IB-1:0] executed [0:T-1];
  reg [CB-1:0] cycle [0:T-1];
  reg flush [0:T-1];
  reg [64:0] sum;  // the count after an executed(): one bit more than any request
  reg err;
  integer i;
  wire slot_ok = req_slot < T;

  always @(*) begin
    sum = {1'b0, req_value} + (slot_ok ? executed[req_slot] : 0);
    case (req_op)
      2'd1: err = !slot_ok || (CB < 64 && (req_value >> CB) != 0);
      2'd2: err = !slot_ok || (IB < 64 && (sum >> IB) != 0) || sum[64];
      default: err = !slot_ok;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < T; i = i + 1) begin
        executed[i] <= 0;
        cycle[i] <= 0;
        flush[i] <= 1'b0;
      end
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_executed <= 64'd0;
      resp_cycle <= 64'd0;
      resp_flush <= 1'b0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err) begin
          resp_executed <= executed[req_slot];
          resp_cycle <= cycle[req_slot];
          resp_flush <= flush[req_slot];
          case (req_op)
            2'd1: begin
              executed[req_slot] <= 0;
              cycle[req_slot] <= req_value[CB-1:0];
              flush[req_slot] <= req_idempotent;
              resp_executed <= 64'd0;
              resp_cycle <= req_value;
              resp_flush <= req_idempotent;
            end
            2'd2: begin
              executed[req_slot] <= sum[IB-1:0];
              resp_executed <= sum[63:0];
            end
            2'd3: begin
              flush[req_slot] <= 1'b0;
              resp_flush <= 1'b0;
            end
            default: ;
          endcase
        end
      end
    end
  end
endmodule

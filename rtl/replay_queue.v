// Replay queue (SPEC 3), Verilog twin of modules/extensions/replay_queue.* and its pin view: E
// entries of {warp, pc}, one per in-flight global memory instruction, addressed by slot (the
// handle the ld/st unit keeps for the commit). Operations:
//   0 issue(warp, pc): the lowest free slot takes the entry; resp_slot is that slot;
//   1 commit(slot): the entry leaves (out of order);
//   2 take(warp): every entry of the warp leaves (a context switch takes them); resp_taken counts them.
// The response is the entry count and full flag after the operation; latency 1 cycle. Issue when
// full or with a warp or PC wider than WB or PCB bits, commit of a free or out-of-range slot, a
// take with a warp wider than WB bits, an unknown operation: resp_error, nothing changes.
/* verilator lint_off WIDTH */
module replay_queue #(
    parameter E = 128,  // entries per SM
    parameter WB = 6,   // warp index bits
    parameter PCB = 32  // PC bits
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,   // 0 issue, 1 commit, 2 take
    input  wire [7:0]  req_warp,
    input  wire [63:0] req_pc,
    input  wire [15:0] req_slot,
    output reg         resp_valid,
    output reg         resp_error,
    output reg  [15:0] resp_count,
    output reg         resp_full,
    output reg  [15:0] resp_slot,
    output reg  [15:0] resp_taken
);
  reg valid [0:E-1];
  reg [WB-1:0] warp [0:E-1];
  reg [PCB-1:0] pc [0:E-1];
  reg [15:0] count;
  reg has_free;
  reg [15:0] free;   // lowest free slot
  reg [15:0] match;  // entries of req_warp
  reg err;
  integer i;
  wire warp_ok = (req_warp >> WB) == 0;
  wire pc_ok = PCB >= 64 || (req_pc >> PCB) == 0;

  always @(*) begin
    has_free = 0;
    free = 16'd0;
    match = 16'd0;
    for (i = E - 1; i >= 0; i = i - 1) begin
      if (!valid[i]) begin
        has_free = 1;
        free = i[15:0];
      end
      if (valid[i] && warp[i] == req_warp[WB-1:0]) match = match + 1'b1;
    end
    case (req_op)
      2'd0: err = !has_free || !warp_ok || !pc_ok;
      2'd1: err = req_slot >= E || !valid[req_slot];
      2'd2: err = !warp_ok;
      default: err = 1;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < E; i = i + 1) valid[i] <= 1'b0;
      count <= 16'd0;
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_count <= 16'd0;
      resp_full <= 1'b0;
      resp_slot <= 16'd0;
      resp_taken <= 16'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err) begin
          resp_taken <= 16'd0;
          case (req_op)
            2'd0: begin
              valid[free] <= 1'b1;
              warp[free] <= req_warp[WB-1:0];
              pc[free] <= req_pc[PCB-1:0];
              count <= count + 1'b1;
              resp_count <= count + 1'b1;
              resp_full <= count + 1 == E;
              resp_slot <= free;
            end
            2'd1: begin
              valid[req_slot] <= 1'b0;
              count <= count - 1'b1;
              resp_count <= count - 1'b1;
              resp_full <= 1'b0;
              resp_slot <= req_slot;
            end
            default: begin  // take
              for (i = 0; i < E; i = i + 1)
                if (valid[i] && warp[i] == req_warp[WB-1:0]) valid[i] <= 1'b0;
              count <= count - match;
              resp_count <= count - match;
              resp_full <= count - match == E;
              resp_slot <= 16'd0;
              resp_taken <= match;
            end
          endcase
        end
      end
    end
  end
endmodule

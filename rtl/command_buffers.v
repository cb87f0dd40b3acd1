// Command buffers (SPEC 2), Verilog twin of modules/extensions/active_queue.hpp's CommandBuffers
// and its pin view: one kernel-launch command per context (the launch id stands for the command's
// fields, as in the C++ core). Operations: read, put, take. The response is the context's buffer
// after the operation (take: the launch taken); latency 1 cycle. Put on a full buffer, take from
// an empty one, a context out of range or an unknown operation: resp_error, nothing changes.
module command_buffers #(
    parameter C = 32  // contexts
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,   // 0 read, 1 put, 2 take
    input  wire [7:0]  req_ctx,
    input  wire [31:0] req_launch,
    output reg         resp_valid,
    output reg         resp_error,
    output reg         resp_occupied,
    output reg  [31:0] resp_launch
);
  reg        occ    [0:C-1];
  reg [31:0] launch [0:C-1];
  integer i;
  wire ok = req_ctx < C;
  wire cur = ok ? occ[req_ctx] : 1'b0;
  wire err = !ok || req_op == 2'd3 || (req_op == 2'd1 && cur) || (req_op == 2'd2 && !cur);

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < C; i = i + 1) begin
        occ[i] <= 1'b0;
        launch[i] <= 32'd0;
      end
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_occupied <= 1'b0;
      resp_launch <= 32'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err) begin
          case (req_op)
            2'd1: begin
              occ[req_ctx] <= 1'b1;
              launch[req_ctx] <= req_launch;
              resp_occupied <= 1'b1;
              resp_launch <= req_launch;
            end
            2'd2: begin
              occ[req_ctx] <= 1'b0;
              resp_occupied <= 1'b0;
              resp_launch <= launch[req_ctx];
            end
            default: begin
              resp_occupied <= cur;
              resp_launch <= cur ? launch[req_ctx] : 32'd0;
            end
          endcase
        end
      end
    end
  end
endmodule

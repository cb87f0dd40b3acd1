// Active queue (SPEC 2), Verilog twin of modules/extensions/active_queue.* and its pin view: the
// KSRT indices of the active kernels, oldest first, N entries. Operations: read the pos-th, push
// at the tail, remove an index (the younger ones move up one place in the same cycle). The
// response is the size after the operation and the index read, pushed or removed; latency 1
// cycle. Read past the end, push when full or of an index wider than KB bits, remove of an index
// not in the queue, an unknown operation: resp_error, nothing changes.
/* verilator lint_off WIDTH */
module active_queue #(
    parameter N = 16,  // entries: N_SM
    parameter KB = 4   // KSRT index bits
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       req_valid,
    input  wire [1:0] req_op,   // 0 read, 1 push, 2 remove
    input  wire [7:0] req_pos,
    input  wire [7:0] req_k,
    output reg        resp_valid,
    output reg        resp_error,
    output reg  [7:0] resp_size,
    output reg  [7:0] resp_k
);
  reg [KB-1:0] q [0:N-1];
  reg [7:0] size;
  reg found;
  reg [7:0] at;  // position of req_k (remove)
  reg err;
  integer i;

  always @(*) begin
    found = 0;
    at = 8'd0;
    for (i = N - 1; i >= 0; i = i - 1)
      if (i < size && q[i] == req_k[KB-1:0] && (req_k >> KB) == 0) begin
        found = 1;
        at = i[7:0];
      end
    case (req_op)
      2'd0: err = req_pos >= size;
      2'd1: err = size == N || (req_k >> KB) != 0;
      2'd2: err = !found;
      default: err = 1;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < N; i = i + 1) q[i] <= {KB{1'b0}};
      size <= 8'd0;
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_size <= 8'd0;
      resp_k <= 8'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err) begin
          case (req_op)
            2'd1: begin
              q[size] <= req_k[KB-1:0];
              size <= size + 1'b1;
              resp_size <= size + 1'b1;
              resp_k <= req_k;
            end
            2'd2: begin
              for (i = 0; i < N - 1; i = i + 1)
                if (i >= at) q[i] <= q[i + 1];
              size <= size - 1'b1;
              resp_size <= size - 1'b1;
              resp_k <= req_k;
            end
            default: begin
              resp_size <= size;
              resp_k <= {{(8-KB){1'b0}}, q[req_pos]};
            end
          endcase
        end
      end
    end
  end
endmodule

/* verilator lint_off WIDTH */  // 8-bit request indices into 2^n-entry arrays, guarded by range checks
// Preempted Thread Block Queues (SPEC 2), Verilog twin of modules/extensions/ptbq.* pin view.
// Q FIFOs of C entries {TB id, save pointer}. Operations: front, push, pop, clear. The response is
// the addressed queue's head and size after the operation; latency 1 cycle. Push to a full queue
// and pop from an empty one are rejected (resp_error), leaving the queue unchanged.
module ptbq #(
    parameter Q = 16,    // queues: one per KSRT entry
    parameter C = 256,   // entries per queue: N_SM x T_max (any count, not only a power of two)
    parameter CB = 8,    // index bits: ceil(log2 C)
    parameter TBB = 32,  // TB id bits
    parameter PB = 32    // save pointer bits
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          req_valid,
    input  wire [1:0]    req_op,   // 0 front, 1 push, 2 pop, 3 clear
    input  wire [7:0]    req_q,
    input  wire [31:0]   req_tb,
    input  wire [31:0]   req_ptr,
    output reg           resp_valid,
    output reg           resp_error,
    output reg           resp_empty,
    output reg  [31:0]   resp_tb,
    output reg  [31:0]   resp_ptr,
    output reg  [15:0]   resp_size
);
  reg [TBB-1:0] tb_mem  [0:Q*C-1];
  reg [PB-1:0]  ptr_mem [0:Q*C-1];
  reg [CB-1:0]  head    [0:Q-1];
  reg [CB:0]    count   [0:Q-1];
  integer i;
  wire q_ok = req_q < Q;
  wire [CB:0] cnt = count[req_q];
  wire [CB-1:0] hd = head[req_q];
  reg err;
  reg [CB-1:0] n_head;
  reg [CB:0] n_count;

  always @(*) begin
    err = !q_ok;
    n_head = hd;
    n_count = cnt;
    case (req_op)
      2'd0: ;
      2'd1: if (cnt == C) err = 1; else n_count = cnt + 1'b1;
      2'd2: if (cnt == 0) err = 1; else begin n_head = (hd == C - 1) ? {CB{1'b0}} : hd + 1'b1; n_count = cnt - 1'b1; end
      2'd3: begin n_head = {CB{1'b0}}; n_count = {(CB+1){1'b0}}; end
    endcase
    if (!q_ok) err = 1;
  end

  // The head entry after the operation (a push onto an empty queue becomes the head).
  wire [CB-1:0] rd_head = err ? hd : n_head;
  wire [CB:0] rd_count = err ? cnt : n_count;
  wire push_is_head = !err && req_op == 2'd1 && cnt == 0;
  // The tail slot: head + count, wrapped at C.
  wire [CB:0] tail_sum = {1'b0, hd} + cnt;
  wire [CB:0] tail = tail_sum >= C ? tail_sum - C : tail_sum;

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < Q; i = i + 1) begin
        head[i] <= {CB{1'b0}};
        count[i] <= {(CB+1){1'b0}};
      end
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_empty <= 1'b1;
      resp_tb <= 32'd0;
      resp_ptr <= 32'd0;
      resp_size <= 16'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        if (!err) begin
          head[req_q] <= n_head;
          count[req_q] <= n_count;
          if (req_op == 2'd1) begin
            tb_mem[req_q * C + tail] <= req_tb[TBB-1:0];
            ptr_mem[req_q * C + tail] <= req_ptr[PB-1:0];
          end
        end
        resp_error <= err;
        if (q_ok) begin
          resp_empty <= rd_count == 0;
          resp_size <= rd_count;
          resp_tb <= push_is_head ? req_tb : (rd_count == 0 ? 32'd0 : tb_mem[req_q * C + rd_head]);
          resp_ptr <= push_is_head ? req_ptr : (rd_count == 0 ? 32'd0 : ptr_mem[req_q * C + rd_head]);
        end
      end
    end
  end
endmodule

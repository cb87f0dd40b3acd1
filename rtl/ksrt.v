/* verilator lint_off WIDTH */  // 8-bit request indices into 2^n-entry arrays, guarded by range checks
// Kernel Status Register Table (SPEC 2), Verilog twin of modules/extensions/ksrt.* pin view.
// N entries of {KSR fields, context, priority, tokens, valid}. Operations: read, allocate (first
// free entry), release, issue_next (next_tb + 1), tb_done (tbs_done + 1), set_tokens. A value
// wider than its field, a full table or a bad index is rejected (resp_error), state unchanged.
// The response is the addressed (or allocated) entry after the operation; latency 1 cycle.
module ksrt #(
    parameter N = 16, parameter GB = 32, parameter THB = 11, parameter RB = 17, parameter SB = 16,
    parameter PB = 49, parameter CB = 3, parameter PRB = 4, parameter TKB = 6
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [2:0]  req_op,   // 0 read, 1 allocate, 2 release, 3 issue_next, 4 tb_done, 5 set_tokens
    input  wire [7:0]  req_idx,
    input  wire [31:0] req_grid,
    input  wire [15:0] req_threads,
    input  wire [31:0] req_regs,
    input  wire [31:0] req_shm,
    input  wire [63:0] req_param,
    input  wire [7:0]  req_context,
    input  wire [7:0]  req_priority,
    input  wire [15:0] req_tokens,  // two's complement
    output reg         resp_valid,
    output reg         resp_error,
    output reg  [7:0]  resp_idx,
    output reg         resp_entry_valid,
    output reg  [31:0] resp_grid,
    output reg  [15:0] resp_threads,
    output reg  [31:0] resp_regs,
    output reg  [31:0] resp_shm,
    output reg  [31:0] resp_next_tb,
    output reg  [31:0] resp_tbs_done,
    output reg  [63:0] resp_param,
    output reg  [7:0]  resp_context,
    output reg  [7:0]  resp_priority,
    output reg  [15:0] resp_tokens
);
  reg           v    [0:N-1];
  reg [GB-1:0]  grid [0:N-1];
  reg [THB-1:0] thr  [0:N-1];
  reg [RB-1:0]  regs [0:N-1];
  reg [SB-1:0]  shm  [0:N-1];
  reg [GB-1:0]  nxt  [0:N-1];
  reg [GB-1:0]  done [0:N-1];
  reg [PB-1:0]  prm  [0:N-1];
  reg [CB-1:0]  ctx  [0:N-1];
  reg [PRB-1:0] pri  [0:N-1];
  reg [TKB-1:0] tok  [0:N-1];

  integer i;
  reg err;
  reg found;
  reg [7:0] free_idx, idx;
  wire fits = (req_grid >> GB) == 0 && (req_threads >> THB) == 0 && (req_regs >> RB) == 0 &&
              (req_shm >> SB) == 0 && (req_param >> PB) == 0 && (req_context >> CB) == 0 &&
              (req_priority >> PRB) == 0;
  wire signed [15:0] t = req_tokens;
  wire tok_fits = t >= -(16'sd1 <<< (TKB - 1)) && t <= (16'sd1 <<< (TKB - 1)) - 16'sd1;

  always @(*) begin
    found = 0;
    free_idx = 8'd0;
    for (i = N - 1; i >= 0; i = i - 1)
      if (!v[i]) begin
        found = 1;
        free_idx = i[7:0];
      end
    idx = req_op == 3'd1 ? free_idx : req_idx;
    case (req_op)
      3'd0, 3'd2: err = req_idx >= N;
      3'd1: err = !fits || !found;
      3'd3: err = req_idx >= N || &nxt[req_idx];
      3'd4: err = req_idx >= N || &done[req_idx];
      3'd5: err = req_idx >= N || !tok_fits;
      default: err = 1;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < N; i = i + 1) begin
        v[i] <= 1'b0; grid[i] <= 0; thr[i] <= 0; regs[i] <= 0; shm[i] <= 0; nxt[i] <= 0; done[i] <= 0;
        prm[i] <= 0; ctx[i] <= 0; pri[i] <= 0; tok[i] <= 0;
      end
      resp_valid <= 1'b0; resp_error <= 1'b0; resp_idx <= 8'd0; resp_entry_valid <= 1'b0;
      resp_grid <= 0; resp_threads <= 0; resp_regs <= 0; resp_shm <= 0; resp_next_tb <= 0; resp_tbs_done <= 0;
      resp_param <= 0; resp_context <= 0; resp_priority <= 0; resp_tokens <= 0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err) begin
          resp_idx <= idx;
          case (req_op)
            3'd1: begin
              v[idx] <= 1'b1; grid[idx] <= req_grid; thr[idx] <= req_threads; regs[idx] <= req_regs;
              shm[idx] <= req_shm; nxt[idx] <= 0; done[idx] <= 0; prm[idx] <= req_param; ctx[idx] <= req_context;
              pri[idx] <= req_priority; tok[idx] <= 0;
            end
            3'd2: begin
              v[idx] <= 1'b0; grid[idx] <= 0; thr[idx] <= 0; regs[idx] <= 0; shm[idx] <= 0; nxt[idx] <= 0;
              done[idx] <= 0; prm[idx] <= 0; ctx[idx] <= 0; pri[idx] <= 0; tok[idx] <= 0;
            end
            3'd3: nxt[idx] <= nxt[idx] + 1'b1;
            3'd4: done[idx] <= done[idx] + 1'b1;
            3'd5: tok[idx] <= req_tokens[TKB-1:0];
            default: ;
          endcase
          // The entry after the operation.
          resp_entry_valid <= req_op == 3'd1 ? 1'b1 : req_op == 3'd2 ? 1'b0 : v[idx];
          resp_grid <= req_op == 3'd1 ? req_grid : req_op == 3'd2 ? 0 : grid[idx];
          resp_threads <= req_op == 3'd1 ? req_threads : req_op == 3'd2 ? 0 : thr[idx];
          resp_regs <= req_op == 3'd1 ? req_regs : req_op == 3'd2 ? 0 : regs[idx];
          resp_shm <= req_op == 3'd1 ? req_shm : req_op == 3'd2 ? 0 : shm[idx];
          resp_next_tb <= (req_op == 3'd1 || req_op == 3'd2) ? 0 : nxt[idx] + (req_op == 3'd3);
          resp_tbs_done <= (req_op == 3'd1 || req_op == 3'd2) ? 0 : done[idx] + (req_op == 3'd4);
          resp_param <= req_op == 3'd1 ? req_param : req_op == 3'd2 ? 0 : prm[idx];
          resp_context <= req_op == 3'd1 ? req_context : req_op == 3'd2 ? 0 : ctx[idx];
          resp_priority <= req_op == 3'd1 ? req_priority : req_op == 3'd2 ? 0 : pri[idx];
          resp_tokens <= (req_op == 3'd1 || req_op == 3'd2) ? 16'd0 :
                         req_op == 3'd5 ? req_tokens : {{(16-TKB){tok[idx][TKB-1]}}, tok[idx]};
        end
      end
    end
  end
endmodule

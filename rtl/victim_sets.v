// Candidate victim sets (SPEC 4), Verilog twin of modules/extensions/victim_sets.* pin view.
// K rows (positions) x P bits (TB allocation slots). Operations: read, set one bit, clear a
// column in every row at once (a TB was preempted), clear a row. The response is the addressed
// row after the operation and the first empty row (a position now free); latency 1 cycle.
/* verilator lint_off WIDTH */  // 8-bit request indices into 2^n-entry arrays, guarded by range checks
module victim_sets #(
    parameter K = 16,
    parameter P = 16
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,    // 0 read, 1 set, 2 clear_tb (column), 3 clear_row
    input  wire [7:0]  req_pos,
    input  wire [7:0]  req_slot,
    output reg         resp_valid,
    output reg         resp_error,
    output reg  [63:0] resp_row,
    output reg         resp_has_free,
    output reg  [7:0]  resp_free
);
  reg [P-1:0] rows [0:K-1];
  reg [P-1:0] n_rows [0:K-1];
  reg err;
  reg found;
  reg [7:0] free;
  integer i;
  wire pos_ok = req_pos < K;
  wire slot_ok = req_slot < P;

  always @(*) begin
    err = 0;
    for (i = 0; i < K; i = i + 1) n_rows[i] = rows[i];
    case (req_op)
      2'd0: err = !pos_ok;
      2'd1: if (!pos_ok || !slot_ok) err = 1; else n_rows[req_pos] = rows[req_pos] | ({{(P-1){1'b0}}, 1'b1} << req_slot);
      2'd2: if (!slot_ok) err = 1; else for (i = 0; i < K; i = i + 1) n_rows[i] = rows[i] & ~({{(P-1){1'b0}}, 1'b1} << req_slot);
      2'd3: if (!pos_ok) err = 1; else n_rows[req_pos] = {P{1'b0}};
    endcase
    found = 0;
    free = 8'd0;
    for (i = K - 1; i >= 0; i = i - 1)
      if ((err ? rows[i] : n_rows[i]) == {P{1'b0}}) begin
        found = 1;
        free = i[7:0];
      end
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < K; i = i + 1) rows[i] <= {P{1'b0}};
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_row <= 64'd0;
      resp_has_free <= 1'b0;
      resp_free <= 8'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        if (!err) for (i = 0; i < K; i = i + 1) rows[i] <= n_rows[i];
        resp_error <= err;
        if (pos_ok) resp_row <= {{(64-P){1'b0}}, err ? rows[req_pos] : n_rows[req_pos]};
        resp_has_free <= found;
        resp_free <= free;
      end
    end
  end
endmodule

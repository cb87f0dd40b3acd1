// Worked example of an architect's own RTL for one extension (README, "Your own RTL"): an SMST
// (SPEC 2) whose search for the first idle SM walks the table one entry per cycle after each
// update instead of rtl/smst.v's one-cycle priority encoder. Same ports and parameters as
// rtl/smst.v; the response (resp_valid) comes once the search ends: 2 + i cycles after the
// request when SM i is the first idle one, 1 + N when none is. Area for latency: no N-input
// encoder, one comparator.
/* verilator lint_off WIDTH */
module smst_serial_search #(
    parameter N = 16, parameter SMB = 4, parameter KB = 4, parameter TBB = 5
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       req_valid,
    input  wire [2:0] req_op,   // 0 read, 1 set_running, 2 reserve, 3 set_idle, 4 tb_started, 5 tb_left
    input  wire [7:0] req_sm,
    input  wire [7:0] req_arg,
    output reg        resp_valid,
    output reg        resp_error,
    output reg  [1:0] resp_state,
    output reg  [7:0] resp_running,
    output reg  [7:0] resp_next,
    output reg  [7:0] resp_tbs,
    output reg        resp_has_idle,
    output reg  [7:0] resp_idle
);
  reg [1:0]     state   [0:N-1];
  reg [KB-1:0]  running [0:N-1];
  reg [KB-1:0]  nxt     [0:N-1];
  reg [TBB-1:0] tbs     [0:N-1];
  reg           busy;   // searching
  reg [7:0]     scan;   // the entry the search looks at this cycle

  reg [1:0] n_state;
  reg [KB-1:0] n_running, n_next;
  reg [TBB-1:0] n_tbs;
  reg err;
  integer i;
  wire in_range = req_sm < N;
  wire arg_fits = (req_arg >> KB) == 0;
  wire [SMB-1:0] a = req_sm[SMB-1:0];

  always @(*) begin
    n_state = state[a];
    n_running = running[a];
    n_next = nxt[a];
    n_tbs = tbs[a];
    err = !in_range;
    case (req_op)
      3'd1: if (!arg_fits) err = 1; else begin n_running = req_arg[KB-1:0]; n_state = 2'd1; end
      3'd2: if (state[a] == 2'd0 || !arg_fits) err = 1; else begin n_next = req_arg[KB-1:0]; n_state = 2'd2; end
      3'd3: if (tbs[a] != 0) err = 1; else n_state = 2'd0;
      3'd4: if (&tbs[a]) err = 1; else n_tbs = tbs[a] + 1'b1;
      3'd5: if (tbs[a] == 0) err = 1; else n_tbs = tbs[a] - 1'b1;
      3'd0: ;
      default: err = 1;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < N; i = i + 1) begin
        state[i] <= 2'd0;
        running[i] <= {KB{1'b0}};
        nxt[i] <= {KB{1'b0}};
        tbs[i] <= {TBB{1'b0}};
      end
      busy <= 1'b0;
      scan <= 8'd0;
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_state <= 2'd0;
      resp_running <= 8'd0;
      resp_next <= 8'd0;
      resp_tbs <= 8'd0;
      resp_has_idle <= 1'b0;
      resp_idle <= 8'd0;
    end else if (!busy) begin
      resp_valid <= 1'b0;
      if (req_valid) begin  // the update, and the addressed entry's part of the response
        if (!err) begin
          state[a] <= n_state;
          running[a] <= n_running;
          nxt[a] <= n_next;
          tbs[a] <= n_tbs;
        end
        resp_error <= err;
        if (in_range) begin  // an SM outside the table: its entry outputs hold
          resp_state <= err ? state[a] : n_state;
          resp_running <= err ? running[a] : n_running;
          resp_next <= err ? nxt[a] : n_next;
          resp_tbs <= err ? tbs[a] : n_tbs;
        end
        busy <= 1'b1;
        scan <= 8'd0;
      end
    end else if (state[scan[SMB-1:0]] == 2'd0) begin  // the search: one entry per cycle
      resp_has_idle <= 1'b1;
      resp_idle <= scan;
      resp_valid <= 1'b1;
      busy <= 1'b0;
    end else if (scan == N - 1) begin
      resp_has_idle <= 1'b0;
      resp_idle <= 8'd0;
      resp_valid <= 1'b1;
      busy <= 1'b0;
    end else begin
      scan <= scan + 1'b1;
    end
  end
endmodule

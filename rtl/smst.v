// SM Status Table (SPEC 2), Verilog twin of modules/extensions/smst.* and its pin view.
// One request per cycle; the response (the addressed entry after the operation, and the first
// idle SM) is registered: latency 1 cycle. An illegal request leaves the table unchanged and
// raises resp_error, as the C++ core rejects it.
module smst #(
    parameter N = 16,    // SMs = entries
    parameter SMB = 4,   // SM index bits
    parameter KB = 4,    // KSRT index bits: ceil(log2 N)
    parameter TBB = 5    // running-TB count bits: ceil(log2 (T_max + 1))
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       req_valid,
    input  wire [2:0] req_op,   // 0 read, 1 set_running, 2 reserve, 3 set_idle, 4 tb_started, 5 tb_left
    input  wire [7:0] req_sm,
    input  wire [7:0] req_arg,  // KSRT index for set_running / reserve
    output reg        resp_valid,
    output reg        resp_error,
    output reg  [1:0] resp_state,   // 0 idle, 1 running, 2 reserved
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

  // The addressed entry after the operation, and whether the operation is legal.
  reg [1:0] n_state;
  reg [KB-1:0] n_running, n_next;
  reg [TBB-1:0] n_tbs;
  reg err;
  reg found;
  reg [7:0] idle;
  integer i;
  wire in_range = req_sm < N;
  wire arg_fits = (req_arg >> KB) == 0;
  wire [1:0] c_state = state[req_sm[SMB-1:0]];
  wire [TBB-1:0] c_tbs = tbs[req_sm[SMB-1:0]];

  always @(*) begin
    n_state = c_state;
    n_running = running[req_sm[SMB-1:0]];
    n_next = nxt[req_sm[SMB-1:0]];
    n_tbs = c_tbs;
    err = !in_range;
    case (req_op)
      3'd1: if (!arg_fits) err = 1; else begin n_running = req_arg[KB-1:0]; n_state = 2'd1; end
      3'd2: if (c_state == 2'd0 || !arg_fits) err = 1; else begin n_next = req_arg[KB-1:0]; n_state = 2'd2; end
      3'd3: if (c_tbs != 0) err = 1; else n_state = 2'd0;
      3'd4: if (&c_tbs) err = 1; else n_tbs = c_tbs + 1'b1;
      3'd5: if (c_tbs == 0) err = 1; else n_tbs = c_tbs - 1'b1;
      3'd0: ;
      default: err = 1;
    endcase
    // First idle SM after the operation (the serial search of SPEC 2, as one priority encoder).
    found = 0;
    idle = 8'd0;
    for (i = N - 1; i >= 0; i = i - 1) begin
      if ((i[7:0] == req_sm && req_valid && !err) ? (n_state == 2'd0) : (state[i] == 2'd0)) begin
        found = 1;
        idle = i[7:0];
      end
    end
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < N; i = i + 1) begin
        state[i] <= 2'd0;
        running[i] <= {KB{1'b0}};
        nxt[i] <= {KB{1'b0}};
        tbs[i] <= {TBB{1'b0}};
      end
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_state <= 2'd0;
      resp_running <= 8'd0;
      resp_next <= 8'd0;
      resp_tbs <= 8'd0;
      resp_has_idle <= 1'b0;
      resp_idle <= 8'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        if (!err) begin
          state[req_sm[SMB-1:0]] <= n_state;
          running[req_sm[SMB-1:0]] <= n_running;
          nxt[req_sm[SMB-1:0]] <= n_next;
          tbs[req_sm[SMB-1:0]] <= n_tbs;
        end
        resp_error <= err;
        if (in_range) begin  // an SM outside the table: its entry outputs hold
          resp_state <= err ? c_state : n_state;
          resp_running <= {{(8-KB){1'b0}}, err ? running[req_sm[SMB-1:0]] : n_running};
          resp_next <= {{(8-KB){1'b0}}, err ? nxt[req_sm[SMB-1:0]] : n_next};
          resp_tbs <= {{(8-TBB){1'b0}}, err ? c_tbs : n_tbs};
        end
        resp_has_idle <= found;
        resp_idle <= idle;
      end
    end
  end
endmodule

/**
 * The console's learning panel: the shell the server renders. Its script
 * (browser/learning.client.js) fills it from GET /v1/learning with the gate
 * key typed in the calculator, if any: per tool, the learned priors with
 * their ranges beside the config's, the breaker's state with its evidence
 * and what its rule can see, and (with the admin token above) a switch that
 * forces the breaker open, closed or back to auto.
 *
 * @example
 * <LearningPanel />
 */
export function LearningPanel() {
  return (
    <section class="card" id="learning" aria-labelledby="learning-h">
      <div class="section-head">
        <div>
          <h2 id="learning-h">What the gate learned</h2>
          <p class="note">
            Priors learned from the tenant's outcomes (<code>GET /v1/learning</code>), per tool and model, and the
            breaker that stops stubbing a losing tool. docs/learning.md says when to trust them.
          </p>
        </div>
        <form id="learning-form">
          <button type="submit" id="l-load">
            Load
          </button>
        </form>
      </div>
      <p id="learning-status" class="status" role="status" aria-live="polite">
        Not loaded yet.
      </p>
      <p id="learning-sees" class="note" hidden />
      <div class="table-scroll" id="learning-body" hidden>
        <table class="terms" id="learning-table">
          <caption>Learned (range, n) against the config's value; the breaker per tool</caption>
          <thead>
            <tr>
              <th scope="col">tool / model</th>
              <th scope="col">recall p</th>
              <th scope="col">horizon h</th>
              <th scope="col">cache q</th>
              <th scope="col">breaker</th>
              <th scope="col">ops</th>
            </tr>
          </thead>
          <tbody />
        </table>
      </div>
    </section>
  );
}

@sleep @requires.sleep @fresh_server
Feature: Sleeping on idle
  With --sleep-idle-seconds N the server unloads its model and KV cache after N seconds without a task;
  /props says is_sleeping. /health, /props, /models (and /metrics, from b11434 on) are no tasks: they answer
  while it sleeps and do not wake it. Any other request wakes it, and is answered exactly as an awake server answers it.
  While it sleeps /metrics serves the counters as they were when it fell asleep.

  Background: A server that sleeps after one idle second
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size
    And   prometheus compatible metrics exposed
    And   the server sleeps after 1 second of idleness

  Scenario: An idle server falls asleep, and the read-only routes answer without waking it
    Then  the server is starting
    And   the server falls asleep within 10 seconds
    Then  /health answers while the server sleeps, without waking it
    And   /props answers while the server sleeps, without waking it
    And   /models answers while the server sleeps, without waking it
    And   /v1/models answers while the server sleeps, without waking it

  # b11434's README lists /metrics among the routes that do not wake the server, and its handler answers
  # without a task (create_response(true)); b9093's /metrics handler creates a task, so there it wakes the
  # server: a change of the documented behaviour, applied from the build that documents it.
  @build.from.11434
  Scenario: /metrics answers while the server sleeps, without waking it
    Then  the server is starting
    And   the server falls asleep within 10 seconds
    Then  /metrics answers while the server sleeps, without waking it

  # The KV cache goes with the model: after a sleep the same prompt is processed in full again.
  Scenario: A completion wakes the server and is answered as the awake server answered it
    Then  the server is starting
    Given a prompt Once upon a time
    And   8 max tokens to predict
    And   the request field temperature is 0
    And   a completion request with no api error
    Then  the server falls asleep within 10 seconds
    When  the completion request is sent again
    Then  /props says the server is awake
    And   the last 2 completions are identical
    And   no prompt token came from the cache

  Scenario: Other requests than the read-only ones wake the server
    Then  the server is starting
    And   the server falls asleep within 10 seconds
    When  a POST request to /tokenize with JSON {"content": "Hello"}
    Then  the response status is 200
    And   /props says the server is awake
    And   the server falls asleep within 10 seconds

  # Reading /metrics while asleep: from the build that documents that /metrics does not wake the server.
  @build.from.11434
  Scenario: The metrics of a sleeping server are those it had awake, and count the waking request once
    Then  the server is starting
    Given a prompt Once upon a time
    And   8 max tokens to predict
    And   a completion request with no api error
    And   the metrics are noted
    Then  the server falls asleep within 10 seconds
    And   the metric llamacpp:tokens_predicted_total grew by 0
    And   the metric llamacpp:prompt_tokens_total grew by 0
    And   /props says the server is asleep
    When  the completion request is sent again
    Then  the metric llamacpp:tokens_predicted_total grew by the last completion's timings.predicted_n
    And   the metric llamacpp:prompt_tokens_total grew by the last completion's timings.prompt_n

@server @reasoning @requires.reasoning
Feature: Ending the reasoning of a running chat: /v1/chat/completions/control
  A chat that arms reasoning control (reasoning_control: true) can have its thinking ended while it runs:
  POST /v1/chat/completions/control {"id": <the chat's id>, "action": "reasoning_end"} makes the server
  close the reasoning block at once, and the answer goes on as content. The control answers
  {"success": true}, or {"success": false, "message": ...} when there is nothing it can act on (a chat that
  did not arm it, an id of no running chat). A control without an id, or with another action, is refused.
  The suite's think.jinja opens the reasoning block; the chat is greedy, so a chat without control is the
  reference the controlled one is compared with.

  Background: One slot, the think template, a long greedy answer
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    And   the chat template file think.jinja
    And   the server option --reasoning-format set to deepseek
    And   the request field temperature is 0
    And   128 max tokens to predict
    And   the request field ignore_eos is true
    And   a user prompt What is 2 plus 2?
    Then  the server is starting

  Scenario: reasoning_end ends the reasoning of an armed chat, and the answer goes on as content
    Given the request field reasoning_control is true
    When  a streamed chat is sent with no control request
    And   a streamed chat is sent, reasoning_end requested after 2 reasoning fragments
    Then  the control answered success true
    And   the reasoning ended early and the answer went on as content

  Scenario: A chat that did not arm reasoning control is not changed by reasoning_end
    When  a streamed chat is sent with no control request
    And   a streamed chat is sent, reasoning_end requested after 2 reasoning fragments
    Then  the control answered success false saying "reasoning control not enabled"
    And   the last 2 streamed chats have the same reasoning and content

  Scenario: A control of no running chat succeeds in nothing
    When  a POST request to /v1/chat/completions/control with JSON {"id": "chatcmpl-none", "action": "reasoning_end"}
    Then  the response status is 200
    And   the response JSON is {"success": false, "message": "no active completion for this id"}

  Scenario Outline: A control <case> is refused with 400
    When  a POST request to /v1/chat/completions/control with JSON <body>
    Then  the request is rejected with 400 invalid_request_error saying "<message>"
    And   the server is healthy

    Examples:
      | case                | body                                   | message                |
      | without an id       | {"action": "reasoning_end"}            | missing completion id  |
      | with another action | {"id": "chatcmpl-x", "action": "stop"} | unknown control action |

//! Event entry points, and the wait-list and event-return steps every enqueue shares.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::command::sync::SyncPoint;
use clift_runtime::command::{self, Command};
use clift_runtime::context::Context;
use clift_runtime::event::Event;
use clift_runtime::object::ClObject;
use clift_runtime::queue::Queue;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::context::context;
use crate::boundary::{call, call_ret, note_context};
use crate::handle;
use crate::info::{InfoValue, answer};

/// Reads and checks the wait list of an enqueue call.
///
/// # Safety
/// `list` must be NULL or valid for `count` reads.
pub(crate) unsafe fn wait_list(
    queue: &Queue,
    list: *const cl_event,
    count: cl_uint,
) -> ClResult<Vec<Arc<Event>>> {
    // "CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and num_events_in_wait_list >
    // 0, or event_wait_list is not NULL and num_events_in_wait_list is 0, or if event
    // objects in event_wait_list are not valid events."
    match (list.is_null(), count) {
        (true, 0) => return Ok(Vec::new()),
        (true, _) | (false, 0) => return fail(CL_INVALID_EVENT_WAIT_LIST),
        _ => {}
    }
    // SAFETY: the caller's contract.
    let handles = unsafe { std::slice::from_raw_parts(list, count as usize) };
    let events = handles
        .iter()
        .map(|&e| handle::shared::<Event>(e).or(fail(CL_INVALID_EVENT_WAIT_LIST)))
        .collect::<ClResult<Vec<_>>>()?;
    command::check_wait_list(queue, &events)?;
    Ok(events)
}

/// The last step of every enqueue: queue the command (waiting for it if the call is
/// blocking), and hand its event to the application if it asked for one.
pub(crate) fn enqueue<C: Command>(
    queue: &Arc<Queue>,
    command: C,
    waits: Vec<Arc<Event>>,
    blocking: bool,
    event_out: *mut cl_event,
) -> ClResult<()> {
    let event = command::enqueue(queue, command, waits, blocking)?;
    return_event(event, event_out);
    Ok(())
}

/// Hands a command's event to the application if it asked for one (`event_out` not NULL).
pub(crate) fn return_event(event: Arc<Event>, event_out: *mut cl_event) {
    if !event_out.is_null() {
        // SAFETY: the application's out-parameter for the new event.
        unsafe { event_out.write(handle::new_handle(event)) };
    }
}

/// Validates a list of events for `clWaitForEvents` / `clEnqueueWaitForEvents`.
///
/// # Safety
/// `list` must be NULL or valid for `count` reads.
unsafe fn event_list(list: *const cl_event, count: cl_uint) -> ClResult<Vec<Arc<Event>>> {
    // "CL_INVALID_VALUE if num_events is zero or event_list is NULL."
    if list.is_null() || count == 0 {
        return fail(CL_INVALID_VALUE);
    }
    // SAFETY: the caller's contract.
    let handles = unsafe { std::slice::from_raw_parts(list, count as usize) };
    let events = handles
        .iter()
        .map(|&e| handle::shared::<Event>(e))
        .collect::<ClResult<Vec<_>>>()?;
    // "CL_INVALID_CONTEXT if events specified in event_list do not belong to the same
    // context."
    if events
        .windows(2)
        .any(|w| !Arc::ptr_eq(w[0].context(), w[1].context()))
    {
        return fail(CL_INVALID_CONTEXT);
    }
    Ok(events)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clWaitForEvents(
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    call("clWaitForEvents", || {
        // SAFETY: the application's list of `num_events` handles.
        let events = unsafe { self::event_list(event_list, num_events) }?;
        note_context(events[0].context());
        let mut failed = false;
        for event in &events {
            failed |= event.wait() < 0;
        }
        // "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status of any of the
        // events in event_list is a negative integer value."
        if failed {
            return fail(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        }
        Ok(())
    })
}

/// `clEnqueueWaitForEvents` (1.1): a marker-like command waiting for the given events.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueWaitForEvents(
    command_queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    call("clEnqueueWaitForEvents", || {
        let queue = super::queue::shared_queue(command_queue)?;
        // SAFETY: the application's list of `num_events` handles.
        let events = unsafe { self::event_list(event_list, num_events) }?;
        let wait = SyncPoint::wait_for_events(&queue, &events)?;
        command::enqueue(&queue, wait, events, false)?;
        Ok(())
    })
}

fn event_info(event: &Event, param: cl_event_info) -> ClResult<InfoValue> {
    Ok(match param {
        CL_EVENT_COMMAND_QUEUE => InfoValue::scalar::<cl_command_queue>(event.queue_handle()),
        CL_EVENT_CONTEXT => InfoValue::scalar::<cl_context>(handle::handle_of(&**event.context())),
        CL_EVENT_COMMAND_TYPE => InfoValue::scalar(event.command_type()),
        CL_EVENT_COMMAND_EXECUTION_STATUS => {
            // An application polling the status waits for the command: it must start.
            event.flush();
            InfoValue::scalar(event.status())
        }
        CL_EVENT_REFERENCE_COUNT => InfoValue::scalar(event.header().api_refs()),
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetEventInfo(
    event: cl_event,
    param_name: cl_event_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetEventInfo", || {
        let event = handle::object::<Event>(event)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                event_info(event, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainEvent(event: cl_event) -> cl_int {
    call("clRetainEvent", || handle::retain::<Event>(event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseEvent(event: cl_event) -> cl_int {
    call("clReleaseEvent", || handle::release::<Event>(event))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateUserEvent(
    context: cl_context,
    errcode_ret: *mut cl_int,
) -> cl_event {
    call_ret(
        "clCreateUserEvent",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            self::context(context)?;
            let context = handle::shared::<Context>(context)?;
            Ok(handle::new_handle(Event::user(context)))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clSetUserEventStatus(event: cl_event, execution_status: cl_int) -> cl_int {
    call("clSetUserEventStatus", || {
        let event = handle::shared::<Event>(event)?;
        // "CL_INVALID_EVENT if event is not a valid user event object."
        if !event.is_user_event() {
            return fail(CL_INVALID_EVENT);
        }
        // "CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a negative integer
        // value."
        if execution_status != CL_COMPLETE && execution_status >= 0 {
            return fail(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if the execution_status for event has already been changed by
        // a previous call to clSetUserEventStatus."
        if event.is_finished() {
            return fail(CL_INVALID_OPERATION);
        }
        event.set_status(execution_status);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clSetEventCallback(
    event: cl_event,
    command_exec_callback_type: cl_int,
    pfn_notify: Option<unsafe extern "C" fn(cl_event, cl_int, *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    call("clSetEventCallback", || {
        let handle = event;
        let event = handle::shared::<Event>(event)?;
        // "CL_INVALID_VALUE if pfn_event_notify is NULL or if command_exec_callback_type is
        // not CL_SUBMITTED, CL_RUNNING or CL_COMPLETE."
        let Some(func) = pfn_notify else {
            return fail(CL_INVALID_VALUE);
        };
        if ![CL_SUBMITTED, CL_RUNNING, CL_COMPLETE].contains(&command_exec_callback_type) {
            return fail(CL_INVALID_VALUE);
        }
        let callback = crate::callback::event_callback(func, handle, user_data);
        event.add_callback(command_exec_callback_type, callback);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetEventProfilingInfo(
    event: cl_event,
    param_name: cl_profiling_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetEventProfilingInfo", || {
        let event = handle::object::<Event>(event)?;
        // "CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag is not set
        // for the command-queue, if the execution status of the command identified by event
        // is not CL_COMPLETE or if event is a user event object."
        let profiled = !event.is_user_event() && event.profiled();
        if !profiled || event.status() != CL_COMPLETE {
            return fail(CL_PROFILING_INFO_NOT_AVAILABLE);
        }
        let [queued, submit, start, end] = event.profiling();
        let value = match param_name {
            CL_PROFILING_COMMAND_QUEUED => Ok(InfoValue::scalar(queued)),
            CL_PROFILING_COMMAND_SUBMIT => Ok(InfoValue::scalar(submit)),
            CL_PROFILING_COMMAND_START => Ok(InfoValue::scalar(start)),
            CL_PROFILING_COMMAND_END => Ok(InfoValue::scalar(end)),
            _ => fail(CL_INVALID_VALUE),
        };
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe { answer(value, param_value_size, param_value, param_value_size_ret) }
    })
}
